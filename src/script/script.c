/* script.c: the embedded Lua 5.4 sandbox for heuristics (STYLE "The Lua boundary": one
 * protected call path, a count hook as time budget, a capped allocator as memory budget). */
#include "script/script.h"

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "data/opdefs.h"
#include "script/neighbours.h"
#include "script/script_int.h"

/* The count hook runs every HOOK_EVERY instructions, and more often once the script holds a
 * block of more than HOOK_BYTES / HOOK_EVERY bytes: one instruction can then do work the
 * count does not see in proportion to that block (== of two long strings, next() over a big
 * table's empty slots, a call with a million arguments), so the hook runs at least once per
 * HOOK_BYTES of such work and its CPU-time backstop (count_hook) is late by a millisecond or
 * two at most. */
#define HOOK_EVERY 1000
#define HOOK_BYTES ((size_t)16 << 20)

/* The CPU-time backstop: a script may use NS_PER_INSTRUCTION of CPU time per instruction of
 * its budget, and at least CPU_FLOOR_S (scripts/README.md, "What C work costs"): twice what
 * the default heuristic uses, and what ends the slowest hostile heuristics (docs/benchmarks.md,
 * "Hostile heuristics"). */
#define NS_PER_INSTRUCTION 10
#define CPU_FLOOR_S 0.1

struct script {
	lua_State *L;
	char *path;
	char *data_root;
	size_t mem_used, mem_cap;
	unsigned long long budget, used;
	bool budget_hit, mem_hit;
	bool time_hit;         /* the budget ended by the CPU-time backstop */
	int hook_every;        /* the count hook's interval now */
	size_t big_block;      /* the largest block allocated so far */
	double cpu_cap;        /* seconds of CPU time the budget allows (NS_PER_INSTRUCTION) */
	double cpu_spent;      /* CPU seconds of the protected calls that returned */
	double cpu_start;      /* the thread's CPU time when the call in progress began */
	double wall_next;      /* monotonic time before which the CPU time cannot be over */
	int depth;             /* script_call nesting */
	char *name;            /* registered heuristic name */
	int rank_ref;          /* registry ref of the rank function */
	int rank_op_ref;       /* registry ref of rank_op (the other ops' GEMMs), or LUA_NOREF */
	int ctx_ref;           /* registry ref of {device=, deploy=} */
	const struct tactic *cached_cands; /* candidate table cache, by list */
	int cands_ref;
	void (*print)(const char *line); /* the caller's, for print(); NULL: dropped */
	struct script_param *params;     /* declared by tunetab.heuristic{ params = ... } */
	size_t nparams;
	bool consumer;                   /* a consumer script (tunetab.consumer) */
	int parse_ref, resolve_ref;      /* its functions */
	int opts_ref;                    /* what parse returned */
};

static void count_hook(lua_State *L, lua_Debug *ar);

/* --- allocator with a cap (haproxy's hlua_alloc idea) ---------------------------------- */
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct script *s = ud;
	if (ptr == NULL)
		osize = 0;
	if (nsize == 0) {
		free(ptr);
		s->mem_used -= osize;
		return NULL;
	}
	if (nsize > osize && s->mem_used + (nsize - osize) > s->mem_cap) {
		s->mem_hit = true;
		return NULL;
	}
	/* string.rep, .., table.concat copy megabytes within one instruction: the budget also
	 * counts one instruction per COST_ALLOC_BYTES allocated, and stops the run here, since
	 * the count hook may not fire again for a long time */
	if (nsize > osize && s->L && !s->budget_hit) {
		s->used += (nsize - osize) / COST_ALLOC_BYTES;
		if (s->used > s->budget) {
			s->budget_hit = true;
			lua_sethook(s->L, count_hook, LUA_MASKCOUNT, 1); /* see count_hook */
			return NULL;
		}
	}
	void *p = realloc(ptr, nsize);
	if (p)
		s->mem_used = s->mem_used - osize + nsize;
	/* s->L is the only thread: the sandbox has no coroutine library */
	if (p && nsize > s->big_block && s->L) {
		s->big_block = nsize;
		int every = nsize >= HOOK_BYTES ? 1 : (int)(HOOK_BYTES / nsize);
		if (every < s->hook_every && !s->budget_hit) {
			s->hook_every = every;
			lua_sethook(s->L, count_hook, LUA_MASKCOUNT, every);
		}
	}
	return p;
}

static struct script *self(lua_State *L)
{
	void *ud;
	lua_getallocf(L, &ud);
	return ud;
}

/* --- instruction budget ---------------------------------------------------------------- */
static double clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Whether the script has used more CPU time than its budget allows. The thread's CPU clock is
 * a system call; the monotonic one is not, and the thread cannot have used more CPU time than
 * has passed: the CPU clock is read only once enough time has passed for the cap to be near. */
static bool over_time(struct script *s)
{
	if (!s->depth)
		return false;
	double wall = clock_s(CLOCK_MONOTONIC);
	if (wall < s->wall_next)
		return false;
	double cpu = s->cpu_spent + clock_s(CLOCK_THREAD_CPUTIME_ID) - s->cpu_start;
	if (cpu > s->cpu_cap)
		return true;
	s->wall_next = wall + (s->cpu_cap - cpu);
	return false;
}

/* The budget is spent: from now on every instruction raises (count_hook at every one), and so
 * does every charge. A pcall in the script catches one error, but its caller's next
 * instruction raises again, so the run ends. */
static void budget_spent(struct script *s, lua_State *L)
{
	if (!s->budget_hit)
		lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
	s->budget_hit = true;
}

/* Raises "FILE:LINE: instruction budget of N exceeded...", located at level: 0 in the count
 * hook (the Lua function running), 1 in a C function (its caller). lua_pushfstring knows no
 * %llu: the budget (at most LONG_MAX, cmd/generate.c) goes as a lua_Integer. */
static int budget_error(lua_State *L, int level, const char *how)
{
	luaL_where(L, level);
	lua_pushfstring(L, "instruction budget of %I exceeded%s", (lua_Integer)self(L)->budget, how);
	lua_concat(L, 2);
	return lua_error(L);
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	struct script *s = self(L);
	s->used += s->budget_hit ? 1 : (unsigned long long)s->hook_every;
	if (s->used > s->budget) {
		budget_spent(s, L);
		budget_error(L, 0, "");
	}
	/* the backstop for work no charge counts: a string comparison, next() or a long
	 * argument list in the VM, each bounded by a block (HOOK_BYTES) */
	if (!s->budget_hit && over_time(s)) {
		s->time_hit = true;
		budget_spent(s, L);
		budget_error(L, 0, " in CPU time");
	}
}

void script_charge(lua_State *L, double units)
{
	struct script *s = self(L);
	if (!(units >= 0))
		units = 0;
	if (s->used <= s->budget && units <= (double)(s->budget - s->used))
		s->used += (unsigned long long)units;
	else if (!s->budget_hit) {
		s->used = s->budget + 1;
		budget_spent(s, L);
	}
	if (s->budget_hit)
		budget_error(L, 1, "");
}

static void charge(lua_State *L, unsigned long long units)
{
	script_charge(L, (double)units);
}

/* --- protected calls (Lua's lua.c msghandler) ------------------------------------------- */
static int msghandler(lua_State *L)
{
	size_t len = 0;
	const char *msg = lua_tolstring(L, 1, &len);
	if (msg && strlen(msg) < len) { /* a NUL in it: kept as "\0" (luaL_traceback takes a C string) */
		luaL_Buffer b;
		luaL_buffinit(L, &b);
		for (size_t i = 0; i < len; i++)
			if (msg[i])
				luaL_addchar(&b, msg[i]);
			else
				luaL_addstring(&b, "\\0");
		luaL_pushresult(&b);
		msg = lua_tostring(L, -1);
	}
	if (!msg) { /* as lua.c: no addresses ("table: 0x...") in messages */
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			msg = lua_tostring(L, -1);
		else
			msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* "file.lua:12: message" -> file, line; the first line of the message is kept. */
static int report(struct script *s, int status, struct diags *d, const char *what)
{
	size_t mlen = 0;
	const char *msg = lua_tolstring(s->L, -1, &mlen);
	/* the message as bytes: a NUL or another control character (but a newline or a tab)
	 * shown escaped, not ending or garbling the message (error("a\0b"), #48) */
	struct strbuf sb = STRBUF_INIT;
	if (!msg)
		sb_adds(&sb, "(error object is not a string)");
	for (size_t i = 0; msg && i < mlen; i++) {
		unsigned char c = (unsigned char)msg[i];
		if (c == 0)
			sb_adds(&sb, "\\0");
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			sb_addf(&sb, "\\x%02x", c);
		else
			sb_addc(&sb, (char)c);
	}
	char *m = sb_detach(&sb);
	char *nl = strstr(m, "\nstack traceback:");
	if (nl)
		*nl = '\0';
	int line = 0;
	char *text = m;
	/* chunk names are "@path" -> "path:LINE: msg" */
	const char *base = strrchr(s->path, '/');
	base = base ? base + 1 : s->path;
	char *hit = strstr(m, base);
	if (hit && hit[strlen(base)] == ':' && isdigit((unsigned char)hit[strlen(base) + 1])) {
		line = atoi(hit + strlen(base) + 1);
		char *c2 = strchr(hit + strlen(base) + 1, ':');
		if (c2 && c2[1] == ' ')
			text = c2 + 2;
	}
	if (strlen(text) > 1024)
		memcpy(text + 1021, "...", 4); /* error(string.rep('x', 1e6)) */
	if (s->time_hit)
		diags_add(d, SEV_ERROR, "script", s->path, line, line ? 1 : 0,
			  "script exceeded its instruction budget of %llu in CPU time (%.2f s) while %s",
			  s->budget, s->cpu_cap, what);
	else if (s->budget_hit) /* first: an allocation over the budget fails as LUA_ERRMEM */
		diags_add(d, SEV_ERROR, "script", s->path, line, line ? 1 : 0,
			  "script exceeded its instruction budget of %llu while %s", s->budget, what);
	else if (status == LUA_ERRMEM || s->mem_hit)
		diags_add(d, SEV_ERROR, "script", s->path, line, line ? 1 : 0,
			  "script exceeded its memory cap of %zu MiB while %s", s->mem_cap >> 20, what);
	else
		diags_add(d, SEV_ERROR, "script", s->path, line, line ? 1 : 0, "script error while %s: %s",
			  what, text);
	free(m);
	lua_pop(s->L, 1);
	return TT_SCRIPT;
}

/* Every call into Lua: function and nargs on the stack. */
static int script_call(struct script *s, int nargs, int nres, struct diags *d, const char *what)
{
	lua_State *L = s->L;
	int base = lua_gettop(L) - nargs;
	lua_pushcfunction(L, msghandler);
	lua_insert(L, base);
	/* the CPU time spent in the script (count_hook's backstop): this thread's, from here */
	if (!s->depth++) {
		s->cpu_start = clock_s(CLOCK_THREAD_CPUTIME_ID);
		s->wall_next = clock_s(CLOCK_MONOTONIC) + (s->cpu_cap - s->cpu_spent);
	}
	int status = lua_pcall(L, nargs, nres, base);
	if (!--s->depth)
		s->cpu_spent += clock_s(CLOCK_THREAD_CPUTIME_ID) - s->cpu_start;
	lua_remove(L, base);
	if (status != LUA_OK)
		return report(s, status, d, what);
	return TT_OK;
}

/* --- sandbox ---------------------------------------------------------------------------- */

/* load(chunk [, name [, mode [, env]]]): text chunks only. */
static int safe_load(lua_State *L)
{
	size_t len;
	const char *chunk = luaL_checklstring(L, 1, &len);
	const char *name = luaL_optstring(L, 2, "=(load)");
	script_charge(L, (double)len * COST_LOAD);
	int status = luaL_loadbufferx(L, chunk, len, name, "t");
	if (status != LUA_OK) {
		luaL_pushfail(L);
		lua_insert(L, -2);
		return 2;
	}
	if (!lua_isnone(L, 4)) {
		lua_pushvalue(L, 4);
		if (!lua_setupvalue(L, -2, 1))
			lua_pop(L, 1);
	}
	return 1;
}

/* setmetatable(t, mt) without __gc: Lua runs finalizers with hooks off (GCTM), so a __gc
 * that loops would escape the instruction budget and hang the run, even in script_close. */
static int safe_setmetatable(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(L, "__gc metamethods are not allowed in heuristic scripts");
		lua_pop(L, 1);
	}
	return lua_tocfunction(L, lua_upvalueindex(1))(L); /* in this frame: see costs.c, ORIG */
}

static int safe_print(lua_State *L)
{
	int n = lua_gettop(L);
	/* a Lua buffer, not a strbuf: __tostring may raise an error halfway (nothing to free) */
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	charge(L, COST_PRINT + lua_rawlen(L, -1));
	/* the caller shows it (on stderr, never stdout: generate's table may go there) */
	struct script *s = self(L);
	if (s->print)
		s->print(lua_tostring(L, -1));
	return 0;
}

static void params_free(struct script_param *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* One entry of params: { name = "x", default = 1, min = 0, max = 2 }. 0, or an error text. */
static const char *param_read(lua_State *L, int i, struct script_param *out)
{
	lua_geti(L, -1, i);
	if (!lua_istable(L, -1))
		return "each params entry must be a table";
	lua_getfield(L, -1, "name");
	const char *name = lua_tostring(L, -1);
	size_t len = name ? strlen(name) : 0;
	if (!name || !len || len > 64 || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
		return "a params entry's name must be 1 to 64 of a-z, 0-9 and _";
	out->name = xstrdup(name);
	lua_pop(L, 1);
	double *v[3] = { &out->def, &out->min, &out->max };
	static const char *const keys[3] = { "default", "min", "max" };
	for (int k = 0; k < 3; k++) {
		lua_getfield(L, -1, keys[k]);
		int ok;
		*v[k] = lua_tonumberx(L, -1, &ok);
		lua_pop(L, 1);
		if (!ok || !isfinite(*v[k]))
			return "a params entry needs numbers default, min and max";
	}
	lua_pop(L, 1);
	if (!(out->min <= out->def && out->def <= out->max))
		return "a params entry needs min <= default <= max";
	return NULL;
}

/* tunetab.heuristic{ params = {...} }: the heuristic's free parameters (at most 64). */
static int read_params(lua_State *L, struct script *s)
{
	lua_getfield(L, 1, "params");
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	if (!lua_istable(L, -1))
		return luaL_error(L, "tunetab.heuristic{...}'s params must be a list");
	lua_Integer n = luaL_len(L, -1);
	if (n > 64)
		return luaL_error(L, "tunetab.heuristic{...} declares more than 64 params");
	struct script_param *v = xcalloc((size_t)n + 1, sizeof *v);
	for (lua_Integer i = 1; i <= n; i++) {
		const char *err = param_read(L, (int)i, &v[i - 1]);
		if (err) {
			params_free(v, (size_t)n);
			return luaL_error(L, "%s", err);
		}
	}
	lua_pop(L, 1);
	params_free(s->params, s->nparams);
	s->params = v;
	s->nparams = (size_t)n;
	return 0;
}

size_t script_params(const struct script *s, const struct script_param **out)
{
	*out = s->params;
	return s->nparams;
}

static int api_heuristic(lua_State *L)
{
	struct script *s = self(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, 1, "name");
	const char *name = luaL_checkstring(L, -1);
	if (!*name || strlen(name) > 64)
		return luaL_error(L, "heuristic name must be 1 to 64 characters");
	lua_pop(L, 1);
	read_params(L, s);
	lua_getfield(L, 1, "name");
	char *copy = xstrdup(lua_tostring(L, -1));
	lua_pop(L, 1);
	lua_getfield(L, 1, "rank");
	if (!lua_isfunction(L, -1)) {
		free(copy);
		return luaL_error(L, "tunetab.heuristic{...} needs a 'rank' function");
	}
	if (s->rank_ref != LUA_NOREF)
		luaL_unref(L, LUA_REGISTRYINDEX, s->rank_ref);
	s->rank_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_getfield(L, 1, "rank_op");
	if (!lua_isnil(L, -1) && !lua_isfunction(L, -1)) {
		free(copy);
		return luaL_error(L, "tunetab.heuristic{...}: 'rank_op' must be a function");
	}
	if (s->rank_op_ref != LUA_NOREF)
		luaL_unref(L, LUA_REGISTRYINDEX, s->rank_op_ref);
	s->rank_op_ref = lua_isnil(L, -1) ? (lua_pop(L, 1), LUA_NOREF) : luaL_ref(L, LUA_REGISTRYINDEX);
	free(s->name);
	s->name = copy;
	return 0;
}

static int api_consumer(lua_State *L)
{
	struct script *s = self(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	if (!s->consumer)
		return luaL_error(L, "tunetab.consumer{...} belongs in configs/consumers/, not a heuristic");
	static const char *const fns[] = { "parse", "resolve" };
	int *refs[] = { &s->parse_ref, &s->resolve_ref };
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		lua_getfield(L, 1, fns[i]);
		if (!lua_isfunction(L, -1))
			return luaL_error(L, "tunetab.consumer{...} needs a '%s' function", fns[i]);
		if (*refs[i] != LUA_NOREF)
			luaL_unref(L, LUA_REGISTRYINDEX, *refs[i]);
		*refs[i] = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	return 0;
}

static void new_env(lua_State *L)
{
	/* a fresh _ENV whose reads fall through to the sandbox globals */
	lua_newtable(L);
	lua_newtable(L);
	lua_pushglobaltable(L);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
}

static int api_lib(lua_State *L)
{
	struct script *s = self(L);
	const char *name = luaL_checkstring(L, 1);
	for (const char *p = name; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			return luaL_error(L, "library name '%s' must be [a-z0-9_]+", name);
	if (!*name || strlen(name) > 64)
		return luaL_error(L, "bad library name");
	lua_getfield(L, LUA_REGISTRYINDEX, "tunetab.libs");
	lua_getfield(L, -1, name);
	if (!lua_isnil(L, -1))
		return 1;
	lua_pop(L, 1);
	char *path = xasprintf("%s/scripts/lib/%s.lua", s->data_root, name);
	char *text;
	size_t len;
	int err = read_file(path, 1u << 20, &text, &len);
	if (err) {
		lua_pushfstring(L, "no library '%s' (%s)", name, path);
		free(path); /* before the charge, which may raise */
		charge(L, COST_LIB_MISS);
		return lua_error(L);
	}
	char *chunk = xasprintf("@%s", path);
	free(path);
	int status = luaL_loadbufferx(L, text, len, chunk, "t");
	free(text);
	free(chunk);
	if (status != LUA_OK)
		return lua_error(L);
	new_env(L);
	lua_setupvalue(L, -2, 1);
	lua_call(L, 0, 1); /* errors propagate to the protected caller */
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		lua_pushboolean(L, 1);
	}
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, name);
	return 1;
}

static int api_neighbours(lua_State *L);

static const luaL_Reg api[] = {
	{ "heuristic", api_heuristic },
	{ "consumer", api_consumer },
	{ "lib", api_lib },
	{ "neighbours", api_neighbours },
	{ NULL, NULL },
};

static int open_sandbox(lua_State *L)
{
	static const luaL_Reg libs[] = {
		{ LUA_GNAME, luaopen_base },       { LUA_STRLIBNAME, luaopen_string },
		{ LUA_TABLIBNAME, luaopen_table }, { LUA_MATHLIBNAME, luaopen_math },
		{ LUA_UTF8LIBNAME, luaopen_utf8 }, { NULL, NULL },
	};
	for (const luaL_Reg *l = libs; l->func; l++) {
		luaL_requiref(L, l->name, l->func, 1);
		lua_pop(L, 1);
	}
	/* no files, no bytecode (Redis script_lua.c's deny list) */
	static const char *const denied[] = { "dofile", "loadfile", "require", "collectgarbage" };
	for (size_t i = 0; i < ARRAY_SIZE(denied); i++) {
		lua_pushnil(L);
		lua_setglobal(L, denied[i]);
	}
	lua_pushcfunction(L, safe_load);
	lua_setglobal(L, "load");
	lua_pushcfunction(L, safe_print);
	lua_setglobal(L, "print");
	lua_getglobal(L, "setmetatable");
	lua_pushcclosure(L, safe_setmetatable, 1);
	lua_setglobal(L, "setmetatable");
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);
	costs_install(L); /* string patterns refused, C work charged (costs.c) */
	luaL_newlib(L, api);
	lua_pushstring(L, TUNETAB_VERSION);
	lua_setfield(L, -2, "version");
	lua_setglobal(L, "tunetab");
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "tunetab.libs");
	return 0;
}

static int open_script(struct script **out, const char *data_root, const char *path,
		       const struct script_limits *lim, bool consumer, struct diags *d)
{
	*out = NULL;
	char *text;
	size_t len;
	int err = read_file(path, 4u << 20, &text, &len);
	if (err == ENOBUFS)
		return diag_error(d, TT_SCRIPT, "script", path, 0, 0, "heuristic script larger than 4 MiB");
	if (err)
		return diag_error(d, TT_SCRIPT, "script", path, 0, 0, "cannot read heuristic script: %s",
				  path_strerror(path, err));
	struct script *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->data_root = xstrdup(data_root);
	s->mem_cap = lim->mem_bytes;
	s->budget = lim->instructions;
	s->hook_every = HOOK_EVERY;
	s->cpu_cap = (double)s->budget * NS_PER_INSTRUCTION * 1e-9;
	if (s->cpu_cap < CPU_FLOOR_S)
		s->cpu_cap = CPU_FLOOR_S;
	s->print = lim->print;
	s->rank_ref = s->ctx_ref = s->cands_ref = s->rank_op_ref = LUA_NOREF;
	s->parse_ref = s->resolve_ref = s->opts_ref = LUA_NOREF;
	s->consumer = consumer;
	s->L = lua_newstate(capped_alloc, s);
	if (!s->L) {
		free(text);
		script_close(s);
		return diag_error(d, TT_SCRIPT, "script", path, 0, 0, "cannot create a Lua state");
	}
	lua_sethook(s->L, count_hook, LUA_MASKCOUNT, s->hook_every);
	lua_pushcfunction(s->L, open_sandbox);
	int rc = TT_OK;
	/* opening libraries can run out of memory too: protect it */
	if (lua_pcall(s->L, 0, 0, 0) != LUA_OK)
		rc = report(s, LUA_ERRMEM, d, "opening the sandbox");
	char *chunk = xasprintf("@%s", path);
	if (!rc) {
		int status = luaL_loadbufferx(s->L, text, len, chunk, "t");
		if (status != LUA_OK) {
			rc = report(s, status, d, "loading");
		} else {
			new_env(s->L);
			lua_setupvalue(s->L, -2, 1);
			rc = script_call(s, 0, 0, d, "running the script body");
		}
	}
	free(chunk);
	free(text);
	if (!rc && !consumer && s->rank_ref == LUA_NOREF)
		rc = diag_error(d, TT_SCRIPT, "script", path, 0, 0,
				"the script registered no heuristic: call tunetab.heuristic{ name = ..., "
				"rank = function(q) ... end }");
	if (!rc && consumer && s->parse_ref == LUA_NOREF)
		rc = diag_error(d, TT_SCRIPT, "script", path, 0, 0,
				"the script registered no consumer: call tunetab.consumer{ parse = "
				"function(words, env) ... end, resolve = function(opts, facts) ... end }");
	if (rc) {
		script_close(s);
		return rc;
	}
	*out = s;
	return TT_OK;
}

int script_open(struct script **out, const char *data_root, const char *path,
		const struct script_limits *lim, struct diags *d)
{
	return open_script(out, data_root, path, lim, false, d);
}

int script_open_consumer(struct script **out, const char *data_root, const char *path,
			 const struct script_limits *lim, struct diags *d)
{
	return open_script(out, data_root, path, lim, true, d);
}

void script_close(struct script *s)
{
	if (!s)
		return;
	if (s->L)
		lua_close(s->L);
	free(s->name);
	free(s->path);
	free(s->data_root);
	params_free(s->params, s->nparams);
	free(s);
}

const char *script_heuristic_name(const struct script *s)
{
	return s->name;
}

unsigned long long script_instructions(const struct script *s)
{
	return s->used;
}

static void set_num(lua_State *L, const char *k, double v)
{
	if (v >= 0) {
		lua_pushnumber(L, v);
		lua_setfield(L, -2, k);
	}
}

static void set_int(lua_State *L, const char *k, long long v)
{
	lua_pushinteger(L, v);
	lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
	if (v) {
		lua_pushstring(L, v);
		lua_setfield(L, -2, k);
	}
}

static void set_bool(lua_State *L, const char *k, bool v)
{
	lua_pushboolean(L, v);
	lua_setfield(L, -2, k);
}

/* --- a fit's measurements: device.fit_points and tunetab.neighbours ----------------------- */

/* device.fit_points[stage][config] = { {l, f, k, b, r}, ... } is built when a script first
 * reads a stage: the default heuristic never does (it asks tunetab.neighbours), and building
 * the shipped H200 fit's 16,907 point tables took longer than the rest of its run. The
 * table's metatable (hidden: __metatable) holds, under nb_key, { stage 1's, stage 2's }
 * neighbours objects, from which a stage is built as it was before: same keys, same values,
 * same order. */
static const char nb_key = 0;
#define NB_TYPE "tunetab.neighbours"

struct nb_ud {
	struct nb_index *x;
};

static struct nb_index *check_nb(lua_State *L, int i)
{
	struct nb_ud *u = luaL_checkudata(L, i, NB_TYPE);
	if (!u->x)
		luaL_error(L, "a closed neighbours object");
	return u->x;
}

static int nb_gc(lua_State *L)
{
	struct nb_ud *u = luaL_checkudata(L, 1, NB_TYPE);
	nb_index_free(u->x);
	u->x = NULL;
	return 0;
}

/* nb:shift(list): a per-site shift for nb:mean (list[i] for site i of nb:sites()), copied once
 * (a query's means read it for every configuration of that orientation). */
#define SHIFT_TYPE "tunetab.neighbours.shift"

struct nb_shift {
	size_t n;
	double v[];
};

static int nb_shift_lua(lua_State *L)
{
	struct nb_index *x = check_nb(L, 1);
	luaL_checktype(L, 2, LUA_TTABLE);
	charge(L, x->nsites);
	struct nb_shift *sh = lua_newuserdatauv(L, sizeof *sh + x->nsites * sizeof(double), 1);
	sh->n = x->nsites;
	for (size_t i = 0; i < x->nsites; i++) {
		int isnum;
		lua_rawgeti(L, 2, (lua_Integer)i + 1);
		sh->v[i] = lua_tonumberx(L, -1, &isnum);
		lua_pop(L, 1);
		if (!isnum)
			return luaL_error(L, "shift: site %d has no number", (int)i + 1);
	}
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, -2, 1); /* whose sites these are */
	if (luaL_newmetatable(L, SHIFT_TYPE)) {
		lua_pushliteral(L, SHIFT_TYPE);
		lua_setfield(L, -2, "__metatable");
	}
	lua_setmetatable(L, -2);
	return 1;
}

/* nb:mean(config, lambda, features, k, bits, width, prior, prior_value [, shift, shift_at]):
 * the measured-neighbour estimate of config's log(time / fastest) (neighbours.h), nil when the
 * fit measured no such configuration. shift (from nb:shift) moves each point's r by
 * shift_at - shift[site]. */
static int nb_mean_lua(lua_State *L)
{
	struct nb_index *x = check_nb(L, 1);
	const char *config = luaL_checkstring(L, 2);
	double at[5];
	for (int i = 0; i < 5; i++)
		at[i] = luaL_checknumber(L, 3 + i);
	double prior = luaL_checknumber(L, 8), prior_value = luaL_checknumber(L, 9);
	const double *shift = NULL;
	double shift_at = 0;
	if (!lua_isnoneornil(L, 10)) {
		const struct nb_shift *sh = luaL_checkudata(L, 10, SHIFT_TYPE);
		lua_getiuservalue(L, 10, 1);
		if (!lua_rawequal(L, -1, 1))
			return luaL_error(L, "nb:mean: the shift was made by another neighbours object");
		lua_pop(L, 1);
		shift = sh->v;
		shift_at = luaL_checknumber(L, 11);
	}
	long g = nb_find(x, config);
	charge(L, x->nsites + (g < 0 ? 0 : x->group[g].n)); /* the sites weighed, the points summed */
	if (g < 0)
		lua_pushnil(L);
	else
		lua_pushnumber(L, nb_mean(x, (size_t)g, at, prior, prior_value, shift, shift_at));
	return 1;
}

/* A place as { l, f, k, b }, sized for `more` fields besides. */
static void push_site(lua_State *L, const struct nb_site *s, int more)
{
	lua_createtable(L, 0, 4 + more);
	set_num(L, "l", s->l);
	set_num(L, "f", s->f);
	set_num(L, "k", s->k);
	set_num(L, "b", s->b);
}

/* nb:sites(): the places measured, { {l, f, k, b}, ... }, in the order shift lists use. */
static int nb_sites_lua(lua_State *L)
{
	struct nb_index *x = check_nb(L, 1);
	lua_createtable(L, (int)x->nsites, 0);
	for (size_t i = 0; i < x->nsites; i++) {
		push_site(L, &x->site[i], 0);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

/* One stage of device.fit_points, as it always was: { config = { {l, f, k, b, r}, ... } }. */
static void push_stage_points(lua_State *L, const struct nb_index *x)
{
	lua_newtable(L);
	for (size_t g = 0; g < x->ngroups; g++) {
		const struct nb_group *gr = &x->group[g];
		lua_createtable(L, (int)gr->n, 0);
		for (size_t k = 0; k < gr->n; k++) {
			push_site(L, &x->site[x->pt_site[gr->first + k]], 1);
			set_num(L, "r", x->pt_r[gr->first + k]);
			lua_rawseti(L, -2, (lua_Integer)k + 1);
		}
		lua_setfield(L, -2, gr->config);
	}
}

/* fit_points' __index: a stage (1 or 2) is built on its first read. */
static int fit_points_index(lua_State *L)
{
	int isint;
	lua_Integer stage = lua_type(L, 2) == LUA_TNUMBER ? lua_tointegerx(L, 2, &isint) : 0;
	if (stage != 1 && stage != 2) {
		lua_pushnil(L);
		return 1;
	}
	lua_getmetatable(L, 1);
	lua_rawgetp(L, -1, &nb_key);
	lua_rawgeti(L, -1, stage);
	push_stage_points(L, check_nb(L, -1));
	lua_pushvalue(L, -1);
	lua_rawseti(L, 1, stage);
	return 1;
}

static int fit_points_len(lua_State *L)
{
	lua_pushinteger(L, 2);
	return 1;
}

/* pairs(fit_points): both stages, built */
static int fit_points_pairs(lua_State *L)
{
	for (int stage = 1; stage <= 2; stage++) {
		lua_geti(L, 1, stage);
		lua_pop(L, 1);
	}
	lua_getglobal(L, "next");
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

/* device.fit_points for a fit's measured groups: an empty table that builds its stages when
 * read, and holds each stage's neighbours object. */
static void push_fit_points(lua_State *L, const struct fit_group *groups, size_t n)
{
	static const luaL_Reg methods[] = {
		{ "mean", nb_mean_lua }, { "sites", nb_sites_lua }, { "shift", nb_shift_lua },
		{ NULL, NULL },
	};
	static const luaL_Reg nb_meta[] = { { "__gc", nb_gc }, { NULL, NULL } };
	static const luaL_Reg points_meta[] = {
		{ "__index", fit_points_index }, { "__len", fit_points_len },
		{ "__pairs", fit_points_pairs }, { NULL, NULL },
	};
	if (luaL_newmetatable(L, NB_TYPE)) {
		luaL_setfuncs(L, nb_meta, 0);
		luaL_newlib(L, methods);
		lua_setfield(L, -2, "__index");
		lua_pushliteral(L, NB_TYPE);
		lua_setfield(L, -2, "__metatable");
	}
	lua_pop(L, 1);
	lua_newtable(L); /* fit_points */
	lua_createtable(L, 0, 5);
	luaL_setfuncs(L, points_meta, 0);
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_createtable(L, 2, 0);
	for (int stage = 1; stage <= 2; stage++) {
		struct nb_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
		u->x = NULL; /* set before anything can fail: the __gc sees a NULL or an index */
		luaL_setmetatable(L, NB_TYPE);
		u->x = nb_index_new(groups, n, (unsigned)stage);
		lua_rawseti(L, -2, stage);
	}
	lua_rawsetp(L, -2, &nb_key);
	lua_setmetatable(L, -2);
}

/* tunetab.neighbours(points, stage): the neighbours object of device.fit_points' stage. */
static int api_neighbours(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer stage = luaL_checkinteger(L, 2);
	if (!lua_getmetatable(L, 1) || lua_rawgetp(L, -1, &nb_key) != LUA_TTABLE)
		return luaL_error(L, "tunetab.neighbours: argument 1 is not a fit's measurements "
				  "(q.device.fit_points)");
	if (stage != 1 && stage != 2)
		return luaL_error(L, "tunetab.neighbours: stage must be 1 or 2, not %d", (int)stage);
	lua_rawgeti(L, -1, stage);
	return 1;
}

/* Struct members the scripts see as fields of a Lua table (ctx.device, ctx.deploy, a
 * candidate): the Lua name, where the member is and its C type. */
enum ctx_kind { CK_INT, CK_LONG, CK_DOUBLE, CK_BOOL };
struct ctx_field {
	const char *name;
	size_t offset;
	enum ctx_kind kind;
};
#define FIELD(type, f, kind) { #f, offsetof(struct type, f), kind }
#define FIELD_AS(type, name, f, kind) { name, offsetof(struct type, f), kind }
static const struct ctx_field device_fields[] = {
	FIELD(script_device, sm, CK_INT),
	FIELD(script_device, sm_count, CK_DOUBLE),
	FIELD(script_device, smem_per_block_optin, CK_DOUBLE),
	FIELD(script_device, smem_per_sm, CK_DOUBLE),
	FIELD(script_device, l2_bytes, CK_DOUBLE),
	FIELD(script_device, memory_bandwidth_gbs, CK_DOUBLE),
	FIELD(script_device, boost_clock_mhz, CK_DOUBLE),
};
static const struct ctx_field deploy_fields[] = {
	FIELD(script_deploy, act_bits, CK_LONG),      FIELD(script_deploy, weight_bits, CK_LONG),
	FIELD(script_deploy, out_bits, CK_LONG),      FIELD(script_deploy, hidden, CK_LONG),
	FIELD(script_deploy, inter, CK_LONG),	      FIELD(script_deploy, experts, CK_LONG),
	FIELD(script_deploy, experts_total, CK_LONG), FIELD(script_deploy, top_k, CK_LONG),
	FIELD(script_deploy, tp, CK_LONG),	      FIELD(script_deploy, ep, CK_LONG),
	FIELD(script_deploy, gated, CK_BOOL),
};
static const struct ctx_field tactic_fields[] = {
	FIELD(tactic, id, CK_INT),
	FIELD_AS(tactic, "local_id", local, CK_INT),
	FIELD(tactic, m, CK_INT),
	FIELD(tactic, n, CK_INT),
	FIELD_AS(tactic, "k", k_elems, CK_INT),
	FIELD(tactic, k_bytes, CK_INT),
	FIELD(tactic, swap_ab, CK_BOOL),
	FIELD(tactic, finalize, CK_BOOL),
	FIELD(tactic, tokens_on_n, CK_BOOL),
	FIELD_AS(tactic, "sm80", sm80_style, CK_BOOL),
	FIELD(tactic, stages, CK_INT),
	FIELD(tactic, sm_version, CK_INT),
	FIELD(tactic, dispatchable, CK_BOOL),
};
#undef FIELD
#undef FIELD_AS

/* Sets the fields of the table on top from the struct at base. */
static void set_fields(lua_State *L, const void *base, const struct ctx_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = (const char *)base + f[i].offset;
		switch (f[i].kind) {
		case CK_INT:
			lua_pushinteger(L, *(const int *)p);
			break;
		case CK_LONG:
			lua_pushinteger(L, *(const long *)p);
			break;
		case CK_DOUBLE: /* a negative number is unknown: no field (set_num) */
			if (*(const double *)p < 0)
				continue;
			lua_pushnumber(L, *(const double *)p);
			break;
		case CK_BOOL:
			lua_pushboolean(L, *(const bool *)p);
			break;
		}
		lua_setfield(L, -2, f[i].name);
	}
}

static int build_context(lua_State *L)
{
	const struct script_device *dev = lua_touserdata(L, 1);
	const struct script_deploy *dep = lua_touserdata(L, 2);
	lua_newtable(L); /* ctx */
	lua_newtable(L);
	set_str(L, "name", dev->name);
	set_fields(L, dev, device_fields, ARRAY_SIZE(device_fields));
	lua_newtable(L);
	set_num(L, "bf16", dev->tflops_bf16);
	set_num(L, "fp8", dev->tflops_fp8);
	set_num(L, "fp4", dev->tflops_fp4);
	lua_setfield(L, -2, "dense_tflops");
	if (dev->nfit) {
		lua_createtable(L, 0, (int)dev->nfit);
		for (size_t i = 0; i < dev->nfit; i++)
			set_num(L, dev->fit[i].name, dev->fit[i].value);
		lua_setfield(L, -2, "fit");
	}
	if (dev->ngroups) {
		push_fit_points(L, dev->groups, dev->ngroups);
		lua_setfield(L, -2, "fit_points");
	}
	if (dev->cal) {
		const struct calibration *c = dev->cal;
		lua_newtable(L);
		set_num(L, "copy_gbs", c->copy_gbs);
		lua_newtable(L);
		set_num(L, "bf16", c->dense_tflops.bf16);
		set_num(L, "fp8", c->dense_tflops.fp8);
		lua_setfield(L, -2, "dense_tflops");
		lua_createtable(L, (int)c->tiles_count, 0);
		for (unsigned i = 0; i < c->tiles_count; i++) {
			lua_createtable(L, 0, 4);
			set_int(L, "m", c->tiles[i].m);
			set_int(L, "n", c->tiles[i].n);
			set_num(L, "eff_bf16", c->tiles[i].eff_bf16);
			set_num(L, "eff_fp8", c->tiles[i].eff_fp8);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		lua_setfield(L, -2, "tiles");
		lua_setfield(L, -2, "calibration");
	}
	lua_setfield(L, -2, "device");
	lua_newtable(L);
	set_str(L, "model", dep->model);
	set_str(L, "dtype", dep->dtype);
	set_fields(L, dep, deploy_fields, ARRAY_SIZE(deploy_fields));
	set_str(L, "activation", dep->activation);
	lua_setfield(L, -2, "deploy");
	return 1;
}

/* luaL_ref of its argument, run protected: growing the registry can hit the memory cap. */
static int ref_value(lua_State *L)
{
	lua_settop(L, 1);
	lua_pushinteger(L, luaL_ref(L, LUA_REGISTRYINDEX));
	return 1;
}

/* Pops the value on top into the registry as *ref, dropping the reference *ref held. */
static int script_ref(struct script *s, int *ref, struct diags *d, const char *what)
{
	lua_State *L = s->L;
	lua_pushcfunction(L, ref_value);
	lua_insert(L, -2);
	int rc = script_call(s, 1, 1, d, what);
	if (rc)
		return rc;
	if (*ref != LUA_NOREF)
		luaL_unref(L, LUA_REGISTRYINDEX, *ref);
	*ref = (int)lua_tointeger(L, -1);
	lua_pop(L, 1);
	return TT_OK;
}

int script_set_context(struct script *s, const struct script_device *dev,
		       const struct script_deploy *dep, struct diags *d)
{
	lua_State *L = s->L;
	lua_pushcfunction(L, build_context);
	lua_pushlightuserdata(L, (void *)dev);
	lua_pushlightuserdata(L, (void *)dep);
	int rc = script_call(s, 2, 1, d, "building the context");
	if (rc)
		return rc;
	if ((rc = script_ref(s, &s->ctx_ref, d, "building the context")))
		return rc;
	s->cached_cands = NULL;
	return TT_OK;
}

static int build_candidates(lua_State *L)
{
	const struct tactic *c = lua_touserdata(L, 1);
	lua_Integer n = lua_tointeger(L, 2);
	lua_createtable(L, (int)n, 0);
	for (lua_Integer i = 0; i < n; i++) {
		const struct tactic *t = &c[i];
		lua_createtable(L, 0, 24);
		set_fields(L, t, tactic_fields, ARRAY_SIZE(tactic_fields));
		lua_createtable(L, 3, 0);
		for (int j = 0; j < 3; j++) {
			lua_pushinteger(L, t->cluster[j]);
			lua_rawseti(L, -2, j + 1);
		}
		lua_setfield(L, -2, "cluster");
		set_str(L, "mma", t->sm80_style ? "sm80" : t->mma == MMA_2SM ? "2sm" : "1sm");
		if (t->static_cluster) {
			set_str(L, "dyn_cluster", "static");
		} else if (t->dyn_cluster[0]) {
			lua_createtable(L, 3, 0);
			for (int j = 0; j < 3; j++) {
				lua_pushinteger(L, t->dyn_cluster[j]);
				lua_rawseti(L, -2, j + 1);
			}
			lua_setfield(L, -2, "dyn_cluster");
		}
		set_str(L, "epilogue", t->epilogue == EPI_NO_SMEM ? "no_smem" : "tma");
		set_str(L, "note", t->note);
		char config[256];
		tactic_config(t, config, sizeof config);
		set_str(L, "config", config);
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

struct query {
	int ctx_ref, cands_ref, stage, fallback;
	long tokens, features, k;
};

/* A new query table of nfields on the stack, holding the context's device (and deployment,
 * with deploy). */
static void query_from_ctx(lua_State *L, int ctx_ref, int nfields, bool deploy)
{
	lua_createtable(L, 0, nfields);
	lua_rawgeti(L, LUA_REGISTRYINDEX, ctx_ref);
	lua_getfield(L, -1, "device");
	lua_setfield(L, -3, "device");
	if (deploy) {
		lua_getfield(L, -1, "deploy");
		lua_setfield(L, -3, "deploy");
	}
	lua_pop(L, 1);
}

/* rank()'s argument q, built protected: the script may have left no memory for it. */
static int build_query(lua_State *L)
{
	const struct query *q = lua_touserdata(L, 1);
	query_from_ctx(L, q->ctx_ref, 10, true);
	set_int(L, "stage", q->stage);
	set_int(L, "tokens", q->tokens);
	set_int(L, "features", q->features);
	set_int(L, "k", q->k);
	set_int(L, "fallback", q->fallback);
	lua_rawgeti(L, LUA_REGISTRYINDEX, q->cands_ref);
	lua_setfield(L, -2, "candidates");
	return 1;
}

struct ranking {
	const struct tactic *cands;
	size_t n, nout;
	struct script_rank *out;
	char *seen;
	lua_Integer bad; /* position of the first entry that is no candidate id; 0 if none */
	int bad_isnum;
};

/* Reads rank()'s list (argument 1) into the ranking (argument 2), protected and with raw
 * reads only: no metamethod of the script runs outside the protected call. */
static int read_ranking(lua_State *L)
{
	struct ranking *r = lua_touserdata(L, 2);
	lua_Integer len = (lua_Integer)lua_rawlen(L, 1);
	for (lua_Integer i = 1; i <= len && r->nout < r->n; i++) {
		lua_rawgeti(L, 1, i);
		lua_Integer id;
		double t = -1;
		int isnum;
		if (lua_istable(L, -1)) {
			lua_pushliteral(L, "id");
			lua_rawget(L, -2);
			id = lua_tointegerx(L, -1, &isnum);
			lua_pop(L, 1);
			lua_pushliteral(L, "time");
			lua_rawget(L, -2);
			if (lua_isnumber(L, -1))
				t = lua_tonumber(L, -1);
			lua_pop(L, 1);
		} else {
			id = lua_tointegerx(L, -1, &isnum);
		}
		lua_pop(L, 1);
		size_t pos = r->n;
		for (size_t j = 0; isnum && j < r->n; j++)
			if (r->cands[j].id == id)
				pos = j;
		if (!isnum || pos == r->n) {
			r->bad = i;
			r->bad_isnum = isnum;
			return 0;
		}
		if (r->seen[pos])
			continue;
		r->seen[pos] = 1;
		r->out[r->nout].id = (int)id;
		r->out[r->nout].time_us = t;
		r->nout++;
	}
	return 0;
}

/* Calls the heuristic's function at registry ref (fn: its name, for the error) with the query
 * table build makes from q, both protected, and reads the list it returns into r (read_ranking;
 * r->seen is its own). Returns the status; r->bad says whether an entry was no candidate. */
static int call_ranking(struct script *s, int ref, lua_CFunction build, void *q, const char *fn,
			const char *what, struct ranking *r, struct diags *d)
{
	lua_State *L = s->L;
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	lua_pushcfunction(L, build);
	lua_pushlightuserdata(L, q);
	int rc = script_call(s, 1, 1, d, what);
	if (rc) {
		lua_pop(L, 1); /* the rank function */
		return rc;
	}
	if ((rc = script_call(s, 1, 1, d, what)))
		return rc;
	if (!lua_istable(L, -1)) {
		const char *type = luaL_typename(L, -1); /* a static string: still valid after the pop */
		lua_pop(L, 1);
		return diag_error(d, TT_SCRIPT, "script", s->path, 0, 0, "%s() must return a list of "
				  "candidates (ids or {id=, time=}), not %s", fn, type);
	}
	r->seen = xcalloc(r->n ? r->n : 1, 1);
	lua_pushcfunction(L, read_ranking);
	lua_insert(L, -2);
	lua_pushlightuserdata(L, r);
	rc = script_call(s, 2, 0, d, what);
	free(r->seen);
	r->seen = NULL;
	return rc;
}

void script_forget_candidates(struct script *s)
{
	s->cached_cands = NULL;
}

int script_rank(struct script *s, int stage, long tokens, long features, long k,
		const struct tactic *cands, size_t n, int fallback_id, struct script_rank *out,
		size_t *nout, struct diags *d)
{
	lua_State *L = s->L;
	*nout = 0;
	int rc;
	if (s->cached_cands != cands) {
		lua_pushcfunction(L, build_candidates);
		lua_pushlightuserdata(L, (void *)cands);
		lua_pushinteger(L, (lua_Integer)n);
		if ((rc = script_call(s, 2, 1, d, "building the candidate list")) ||
		    (rc = script_ref(s, &s->cands_ref, d, "building the candidate list")))
			return rc;
		s->cached_cands = cands;
	}
	char what[96];
	snprintf(what, sizeof what, "ranking GEMM%d at %ld tokens", stage, tokens);
	struct query q = { s->ctx_ref, s->cands_ref, stage, fallback_id, tokens, features, k };
	struct ranking r = { cands, n, 0, out, NULL, 0, 0 };
	rc = call_ranking(s, s->rank_ref, build_query, &q, "rank", what, &r, d);
	*nout = r.nout;
	if (rc)
		return rc;
	if (r.bad)
		return diag_error(d, TT_SCRIPT, "script", s->path, 0, 0, "rank() returned %s at "
				  "position %lld, which is not a candidate id of GEMM%d",
				  r.bad_isnum ? "an unknown id" : "a non-integer", (long long)r.bad, stage);
	return TT_OK;
}

/* (op query, n): rank_op's query table */
struct op_query {
	int ctx_ref;
	const struct script_op_gemm *g;
	const struct op_tactic *cands;
	size_t n;
	int fallback;
};

static int build_op_query(lua_State *L)
{
	const struct op_query *q = lua_touserdata(L, 1);
	query_from_ctx(L, q->ctx_ref, 8, false);
	set_str(L, "op", q->g->op);
	set_str(L, "runner", q->g->runner);
	set_int(L, "m", q->g->m);
	set_int(L, "n", q->g->n);
	set_int(L, "k", q->g->k);
	set_int(L, "fallback", q->fallback);
	lua_createtable(L, (int)q->n, 0);
	for (size_t i = 0; i < q->n; i++) {
		const struct op_tactic *t = &q->cands[i];
		lua_createtable(L, 0, 6);
		set_int(L, "id", t->id);
		lua_createtable(L, 3, 0);
		for (unsigned j = 0; j < t->tile_count; j++) {
			lua_pushinteger(L, t->tile[j]);
			lua_rawseti(L, -2, j + 1);
		}
		lua_setfield(L, -2, "tile");
		lua_createtable(L, 2, 0);
		for (unsigned j = 0; j < t->cluster_count; j++) {
			lua_pushinteger(L, t->cluster[j]);
			lua_rawseti(L, -2, j + 1);
		}
		lua_setfield(L, -2, "cluster");
		set_bool(L, "swap_ab", t->swap_ab);
		set_bool(L, "stream_k", t->stream_k);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "candidates");
	return 1;
}

bool script_has_rank_op(const struct script *s)
{
	return s->rank_op_ref != LUA_NOREF;
}

int script_rank_op(struct script *s, const struct script_op_gemm *g, const struct op_tactic *cands,
		   size_t n, int fallback_id, struct script_rank *out, size_t *nout,
		   struct diags *d)
{
	*nout = 0;
	if (s->rank_op_ref == LUA_NOREF)
		return diag_error(d, TT_SCRIPT, "script", s->path, 0, 0, "the heuristic has no rank_op "
				  "(tunetab.heuristic{ rank_op = ... }) for %s", g->op);
	char what[160];
	snprintf(what, sizeof what, "ranking %s %ldx%ldx%ld", g->op, g->m, g->n, g->k);
	struct op_query q = { s->ctx_ref, g, cands, n, fallback_id };
	/* its list read as rank()'s: the ids are 0..n-1 */
	struct tactic *ids = xcalloc(n ? n : 1, sizeof *ids);
	for (size_t i = 0; i < n; i++)
		ids[i].id = (int)cands[i].id;
	struct ranking r = { ids, n, 0, out, NULL, 0, 0 };
	int rc = call_ranking(s, s->rank_op_ref, build_op_query, &q, "rank_op", what, &r, d);
	free(ids);
	*nout = r.nout;
	if (!rc && r.bad)
		rc = diag_error(d, TT_SCRIPT, "script", s->path, 0, 0, "rank_op() returned %s at "
				"position %lld, which is not a tactic of %s", r.bad_isnum ? "an unknown id"
				: "a non-integer", (long long)r.bad, g->op);
	return rc;
}

/* --- consumer scripts ------------------------------------------------------------------ */

void script_fields_free(struct script_field *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].s);
	}
	free(v);
}

static void push_field(lua_State *L, const struct script_field *f)
{
	switch (f->kind) {
	case SK_STR: lua_pushstring(L, f->s); break;
	case SK_INT: lua_pushinteger(L, f->i); break;
	case SK_BOOL: lua_pushboolean(L, f->b); break;
	}
}

/* (fields, n) -> a table, "a.b" nested as t.a.b */
/* A dotted name's part as a table key: digits are a list index, anything else a string. */
static void push_part(lua_State *L, const char *s, size_t n)
{
	if (n && n < 16 && strspn(s, "0123456789") >= n && s[0] != '0')
		lua_pushinteger(L, (lua_Integer)strtoll(s, NULL, 10));
	else
		lua_pushlstring(L, s, n);
}

static int build_fields(lua_State *L)
{
	const struct script_field *v = lua_touserdata(L, 1);
	size_t n = (size_t)lua_tointeger(L, 2);
	lua_newtable(L);
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind == SK_STR && !v[i].s)
			continue; /* nil */
		lua_pushvalue(L, 3);
		const char *name = v[i].name;
		const char *dot;
		while ((dot = strchr(name, '.'))) {
			push_part(L, name, (size_t)(dot - name));
			if (lua_rawget(L, -2) != LUA_TTABLE) {
				lua_pop(L, 1);
				lua_newtable(L);
				push_part(L, name, (size_t)(dot - name));
				lua_pushvalue(L, -2);
				lua_rawset(L, -4);
			}
			lua_remove(L, -2);
			name = dot + 1;
		}
		push_part(L, name, strlen(name));
		push_field(L, &v[i]);
		lua_rawset(L, -3);
		lua_pop(L, 1);
	}
	return 1;
}

static int build_words(lua_State *L)
{
	char *const *w = lua_touserdata(L, 1);
	size_t n = (size_t)lua_tointeger(L, 2);
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_pushstring(L, w[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

struct field_list {
	struct script_field *v;
	size_t n, alloc;
	char **notes;
	size_t nnotes, notes_alloc;
};

/* The key at index -2 as a name part: a string as it is, an integer in decimal; NULL for
 * any other key. */
static const char *key_part(lua_State *L, char *buf, size_t n)
{
	if (lua_type(L, -2) == LUA_TSTRING)
		return lua_tostring(L, -2);
	if (lua_type(L, -2) == LUA_TNUMBER && lua_isinteger(L, -2)) {
		snprintf(buf, n, "%lld", (long long)lua_tointeger(L, -2));
		return buf;
	}
	return NULL;
}

/* The table at index t: its string, integer and boolean fields named prefix + key; a nested
 * table's fields dotted ("ops.1.calls.2.n", a list's items by their 1-based index), to a
 * depth of 6. */
static void read_table(lua_State *L, int t, const char *prefix, struct field_list *fl, int depth)
{
	lua_pushnil(L);
	while (lua_next(L, t)) {
		char num[32];
		const char *k = key_part(L, num, sizeof num);
		int type = lua_type(L, -1);
		if (!k || (type == LUA_TTABLE && depth >= 6)) {
			lua_pop(L, 1);
			continue;
		}
		char *name = xasprintf("%s%s", prefix, k);
		if (type == LUA_TTABLE) {
			char *sub = xasprintf("%s.", name);
			read_table(L, lua_gettop(L), sub, fl, depth + 1);
			free(sub);
			free(name);
			lua_pop(L, 1);
			continue;
		}
		struct script_field f = { 0 };
		if (type == LUA_TSTRING) {
			f.kind = SK_STR;
			f.s = xstrdup(lua_tostring(L, -1));
		} else if (type == LUA_TNUMBER && lua_isinteger(L, -1)) {
			f.kind = SK_INT;
			f.i = lua_tointeger(L, -1);
		} else if (type == LUA_TBOOLEAN) {
			f.kind = SK_BOOL;
			f.b = lua_toboolean(L, -1);
		} else {
			free(name);
			lua_pop(L, 1);
			continue;
		}
		f.name = name;
		ALLOC_GROW(fl->v, fl->n + 1, fl->alloc);
		fl->v[fl->n++] = f;
		lua_pop(L, 1);
	}
}

/* (table, list): the table's string, integer and boolean fields, nested ones dotted
 * (read_table), and its notes */
static int read_fields(lua_State *L)
{
	struct field_list *fl = lua_touserdata(L, 2);
	lua_getfield(L, 1, "notes");
	if (lua_type(L, -1) == LUA_TTABLE)
		for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
			ALLOC_GROW(fl->notes, fl->nnotes + 1, fl->notes_alloc);
			fl->notes[fl->nnotes++] = xstrdup(lua_tostring(L, -1));
			lua_pop(L, 1);
		}
	lua_settop(L, 2);
	lua_pushnil(L);
	lua_setfield(L, 1, "notes");
	read_table(L, 1, "", fl, 0);
	return 0;
}

/* The function's results on the stack (table, or nil and a message) into out; the table is
 * left on the stack. */
static int take_result(struct script *s, const char *what, struct field_list *fl, struct diags *d)
{
	lua_State *L = s->L;
	if (lua_type(L, -2) != LUA_TTABLE) {
		const char *msg = lua_tostring(L, -1);
		int rc = diag_error(d, TT_USAGE, "launch", NULL, 0, 0, "%s",
				    msg ? msg : "the consumer script's result is not a table");
		lua_pop(L, 2);
		return rc;
	}
	lua_pop(L, 1);
	lua_pushcfunction(L, read_fields);
	lua_pushvalue(L, -2);
	lua_pushlightuserdata(L, fl);
	int rc = script_call(s, 2, 0, d, what);
	if (rc) {
		script_fields_free(fl->v, fl->n);
		free_strings(fl->notes, fl->nnotes);
		memset(fl, 0, sizeof *fl);
	}
	return rc;
}

/* Stack: fn, arg. Calls fn(arg, the fields as a table) and reads its result into fl
 * (take_result); the result table is left on the stack. */
static int call_with_fields(struct script *s, const struct script_field *f, size_t nf,
			    const char *what, struct field_list *fl, struct diags *d)
{
	lua_State *L = s->L;
	lua_pushcfunction(L, build_fields);
	lua_pushlightuserdata(L, (void *)f);
	lua_pushinteger(L, (lua_Integer)nf);
	int rc = script_call(s, 2, 1, d, what);
	if (rc) {
		lua_pop(L, 2);
		return rc;
	}
	if ((rc = script_call(s, 2, 2, d, what)))
		return rc;
	return take_result(s, what, fl, d);
}

int script_consumer_parse(struct script *s, char *const *words, size_t nwords,
			  const struct script_field *env, size_t nenv, struct script_field **out,
			  size_t *nout, struct diags *d)
{
	lua_State *L = s->L;
	*out = NULL;
	*nout = 0;
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->parse_ref);
	lua_pushcfunction(L, build_words);
	lua_pushlightuserdata(L, (void *)words);
	lua_pushinteger(L, (lua_Integer)nwords);
	int rc = script_call(s, 2, 1, d, "reading the launch command");
	if (rc) {
		lua_pop(L, 1);
		return rc;
	}
	struct field_list fl = { 0 };
	if ((rc = call_with_fields(s, env, nenv, "reading the launch command", &fl, d)))
		return rc;
	free_strings(fl.notes, fl.nnotes);
	if ((rc = script_ref(s, &s->opts_ref, d, "reading the launch command"))) {
		script_fields_free(fl.v, fl.n);
		return rc;
	}
	*out = fl.v;
	*nout = fl.n;
	return TT_OK;
}

int script_consumer_resolve(struct script *s, const struct script_field *facts, size_t nfacts,
			    struct script_field **out, size_t *nout, char ***notes, size_t *nnotes,
			    struct diags *d)
{
	lua_State *L = s->L;
	*out = NULL;
	*nout = *nnotes = 0;
	*notes = NULL;
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->resolve_ref);
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->opts_ref);
	struct field_list fl = { 0 };
	int rc = call_with_fields(s, facts, nfacts, "resolving the deployment", &fl, d);
	if (rc)
		return rc;
	lua_pop(L, 1);
	*out = fl.v;
	*nout = fl.n;
	*notes = fl.notes;
	*nnotes = fl.nnotes;
	return TT_OK;
}
