/* costs.c: the sandbox's library functions whose C work grows with their input, charged to the
 * instruction budget before they do it (a C loop runs where the count hook never does), and
 * string.find's plain search in linear time. scripts/README.md, "What C work costs", lists
 * every function the sandbox offers and what each is charged. */
#define _GNU_SOURCE /* memmem */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "script/script_int.h"

/* A wrapper keeps the library's function as its first upvalue and calls it directly, in its
 * own call frame: the original sees the same arguments, names itself in its argument errors
 * ("bad argument #2 to 'byte'") and places them at the script's line, as when called
 * directly. None of the functions wrapped here uses upvalues of its own. */
#define ORIG(L) (lua_tocfunction((L), lua_upvalueindex(1)))

static void charge(lua_State *L, double units)
{
	script_charge(L, units);
}

static double len_of(lua_State *L, int i)
{
	size_t n = 0;
	if (lua_type(L, i) == LUA_TSTRING)
		lua_tolstring(L, i, &n);
	return (double)n;
}

/* A number given as a string is converted by scanning all of it: the arguments from..to that
 * are strings, charged a byte each (to < 0: up to the last argument). */
static void charge_numstr(lua_State *L, int from, int to)
{
	double n = 0;
	int top = lua_gettop(L);
	for (int i = from; i <= (to < 0 || to > top ? top : to); i++)
		n += len_of(L, i);
	if (n > 0)
		charge(L, n * COST_BYTE);
}

/* Lua's rule for a string position (string.byte, sub, utf8.len): negative counts from the end;
 * the 1-based result, clipped at 0 (as the library then clips it). */
static lua_Integer pos_rel(lua_Integer pos, size_t len)
{
	if (pos >= 0)
		return pos;
	if ((size_t)0 - (lua_Unsigned)pos > len)
		return 0;
	return (lua_Integer)len + pos + 1;
}

/* How many positions i..j of a string of len holds, once the library has clipped them (i below
 * 1 to 1, j past the end to len): 0 for an empty range. */
static lua_Integer span(lua_Integer i, lua_Integer j, size_t len)
{
	if (i < 1)
		i = 1;
	if (j > (lua_Integer)len)
		j = (lua_Integer)len;
	return j >= i ? j - i + 1 : 0;
}

/* The integer argument i, or def when it is none or nil or no integer (the original raises
 * for the latter; the estimate only has to be safe). */
static lua_Integer opt_int(lua_State *L, int i, lua_Integer def)
{
	int ok;
	lua_Integer v = lua_isnoneornil(L, i) ? def : lua_tointegerx(L, i, &ok);
	return lua_isnoneornil(L, i) || ok ? v : def;
}

/* --- string ---------------------------------------------------------------------------- */

#define SPECIALS "^$*+?.([%-"

/* Any pattern character in p (the whole string: NULs too, as Lua's nospecials). */
static bool has_specials(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] && strchr(SPECIALS, p[i]))
			return true;
	return false;
}

/* The first place of p (m bytes) in s (n bytes), or NULL: memmem (linear: two-way) over
 * windows of at most FIND_CHUNK starts, each charged before it is searched, so a search the
 * budget cannot pay for stops before it runs. A window overlaps the next by m - 1 bytes; with
 * windows of at least 4 m starts the overlap adds at most a quarter to the work. */
#define FIND_CHUNK ((size_t)1 << 20)

static const char *find_text(lua_State *L, const char *s, size_t n, const char *p, size_t m)
{
	if (m == 0)
		return s;
	if (m > n)
		return NULL;
	size_t chunk = m > FIND_CHUNK / 4 ? 4 * m : FIND_CHUNK;
	for (size_t at = 0, last = n - m; at <= last; at += chunk) {
		size_t starts = last - at + 1 < chunk ? last - at + 1 : chunk;
		size_t window = starts + m - 1;
		charge(L, (double)window * COST_FIND);
		const char *hit = memmem(s + at, window, p, m);
		if (hit)
			return hit;
	}
	return NULL;
}

/* string.find(s, p [, init [, plain]]): Lua 5.4's, for plain text only (plain true, or a p
 * without pattern characters); a pattern is refused, since matching one backtracks in C for
 * as long as it likes. init as Lua reads it: negative counts from the end, before the start is
 * 1, after the end finds nothing (an empty p is found at #s + 1). */
static int str_find(lua_State *L)
{
	size_t ls, lp;
	const char *s = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	charge_numstr(L, 3, 3);
	lua_Integer init = luaL_optinteger(L, 3, 1);
	size_t from; /* 0-based */
	if (init > 0)
		from = (size_t)init - 1;
	else if (init == 0 || (size_t)0 - (lua_Unsigned)init > ls)
		from = 0;
	else
		from = ls - ((size_t)0 - (lua_Unsigned)init);
	if (from > ls) {
		luaL_pushfail(L);
		return 1;
	}
	if (!lua_toboolean(L, 4)) {
		charge(L, (double)lp * COST_BYTE);
		if (has_specials(p, lp))
			return luaL_error(L, "string patterns are not available in heuristic scripts "
					  "(they run outside the instruction budget); use "
					  "string.find(s, p, init, true)");
	}
	const char *hit = find_text(L, s + from, ls - from, p, lp);
	if (!hit) {
		luaL_pushfail(L);
		return 1;
	}
	lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
	lua_pushinteger(L, (lua_Integer)(hit - s) + (lua_Integer)lp);
	return 2;
}

static int no_pattern(lua_State *L)
{
	return luaL_error(L, "string patterns are not available in heuristic scripts (they run "
			  "outside the instruction budget)");
}

/* string.byte(s [, i [, j]]): a value pushed per byte, charged once they are (at most the
 * stack's million). */
static int str_byte(lua_State *L)
{
	charge_numstr(L, 2, 3);
	int n = ORIG(L)(L);
	charge(L, (double)n * COST_ELEM);
	return n;
}

/* string.char(...), utf8.char(...): a conversion per argument. */
static int str_char(lua_State *L)
{
	charge_numstr(L, 1, -1);
	charge(L, (double)lua_gettop(L) * COST_ELEM);
	return ORIG(L)(L);
}

static int utf8_char(lua_State *L)
{
	charge_numstr(L, 1, -1);
	charge(L, (double)lua_gettop(L) * COST_UTF8_CHAR);
	return ORIG(L)(L);
}

/* string.lower, upper, reverse: a byte at a time. */
static int str_bytewise(lua_State *L)
{
	charge(L, len_of(L, 1) * COST_BYTE);
	return ORIG(L)(L);
}

/* string.sub: a copy of the result (its allocation is charged too). */
static int str_sub(lua_State *L)
{
	charge_numstr(L, 2, 3);
	int n = ORIG(L)(L);
	charge(L, len_of(L, -1) / COST_CMP_BYTES);
	return n;
}

/* string.rep(s, n [, sep]): a loop of n copies, charged per copy (Lua 5.4.4 loops n times even
 * when s and sep are empty, with nothing allocated for the budget to see: that case is answered
 * here). The result's size is checked by the original first: "resulting string too large". */
#define REP_MAX ((size_t)INT_MAX) /* lstrlib's MAXSIZE */

static int str_rep(lua_State *L)
{
	size_t l, lsep;
	luaL_checklstring(L, 1, &l);
	charge_numstr(L, 2, 2);
	lua_Integer n = luaL_checkinteger(L, 2);
	luaL_optlstring(L, 3, "", &lsep);
	if (n <= 0 || (l == 0 && lsep == 0)) {
		lua_pushliteral(L, "");
		return 1;
	}
	if (l + lsep >= l && l + lsep <= REP_MAX / (lua_Unsigned)n)
		charge(L, 2.0 * (double)n);
	return ORIG(L)(L);
}

/* string.format(fmt, ...): each conversion, what it converts, a float's digits. The format
 * is read as lstrlib reads it (flags, width and precision, then the conversion); a malformed
 * one is the original's error to raise. */
static double fmt_cost(lua_State *L, const char *f, size_t n)
{
	double cost = (double)n * COST_BYTE;
	int arg = 1, top = lua_gettop(L);
	for (size_t i = 0; i < n; i++) {
		if (f[i] != '%')
			continue;
		if (++i < n && f[i] == '%')
			continue;
		size_t spec = i;
		while (i < n && f[i] && strchr("-+ #0123456789.", f[i]))
			i++;
		if (i >= n || ++arg > top)
			break;
		const char *dot = memchr(f + spec, '.', i - spec);
		long prec = dot ? strtol(dot + 1, NULL, 10) : 6; /* Lua allows 2 digits */
		if (prec > 99)
			prec = 99;
		cost += COST_FMT_ITEM;
		char c = f[i];
		if (lua_type(L, arg) == LUA_TSTRING) {
			double l = len_of(L, arg);
			cost += c == 'q' ? l * COST_QUOTE : c == 's' ? l / COST_CMP_BYTES : l * COST_BYTE;
			continue;
		}
		if (!lua_isnumber(L, arg) || !c || !strchr("aAeEfFgG", c))
			continue;
		/* up to a double's 17 digits a conversion is quick; past them (%.99f of 1e308:
		 * 409 digits) each digit is worked out with big-number arithmetic */
		double x = fabs(lua_tonumber(L, arg));
		double digits = dot ? prec + 8 : 0;
		if ((c == 'f' || c == 'F') && isfinite(x) && x >= 1)
			digits = prec + floor(log10(x)) + 1;
		digits = digits > 17 ? digits - 17 : 0;
		cost += digits * COST_FMT_DIGIT;
	}
	return cost;
}

static int str_format(lua_State *L)
{
	size_t n;
	const char *f = luaL_checklstring(L, 1, &n);
	charge(L, fmt_cost(L, f, n));
	return ORIG(L)(L);
}

/* string.pack(fmt, ...), packsize(fmt), unpack(fmt, s [, pos]): an item or more per format
 * byte; pack's padding a byte at a time, charged by its result. */
static int str_pack(lua_State *L)
{
	charge(L, len_of(L, 1) * COST_PACK);
	charge_numstr(L, 2, -1);
	int n = ORIG(L)(L);
	charge(L, len_of(L, -1) * COST_BYTE);
	return n;
}

static int str_packsize(lua_State *L)
{
	charge(L, len_of(L, 1) * COST_PACK);
	return ORIG(L)(L);
}

static int str_unpack(lua_State *L)
{
	charge(L, len_of(L, 1) * COST_PACK + len_of(L, 2) / COST_CMP_BYTES + len_of(L, 3));
	return ORIG(L)(L);
}

/* The string metatable's arithmetic ("10" + 1): each string operand converted. */
static int str_arith(lua_State *L)
{
	charge(L, (len_of(L, 1) + len_of(L, 2)) * COST_BYTE);
	return ORIG(L)(L);
}

/* --- utf8 ------------------------------------------------------------------------------ */

/* utf8.len(s [, i [, j [, lax]]]): a decode per byte of the range. */
static int utf8_len(lua_State *L)
{
	size_t len;
	const char *s = lua_tolstring(L, 1, &len);
	charge_numstr(L, 2, 3);
	if (s && lua_type(L, 1) == LUA_TSTRING) {
		lua_Integer n = span(pos_rel(opt_int(L, 2, 1), len), pos_rel(opt_int(L, 3, -1), len), len);
		if (n > 0)
			charge(L, (double)n * COST_BYTE);
	}
	return ORIG(L)(L);
}

/* utf8.codepoint(s [, i [, j [, lax]]]): a decode and a push per character of the range. */
static int utf8_codepoint(lua_State *L)
{
	size_t len;
	const char *s = lua_tolstring(L, 1, &len);
	charge_numstr(L, 2, 3);
	if (s && lua_type(L, 1) == LUA_TSTRING) {
		lua_Integer i = pos_rel(opt_int(L, 2, 1), len);
		lua_Integer n = span(i, pos_rel(opt_int(L, 3, i), len), len);
		if (n > 0)
			charge(L, (double)n * COST_UTF8_CODE);
	}
	return ORIG(L)(L);
}

/* utf8.offset(s, n [, i]): walks the string a byte at a time, at most all of it. */
static int utf8_offset(lua_State *L)
{
	charge_numstr(L, 2, 3);
	charge(L, len_of(L, 1) * COST_BYTE);
	return ORIG(L)(L);
}

/* utf8.codes' iterator (s, i): skips the continuation bytes after i before it decodes, a byte
 * at a time: those are counted here first (as many, and charged), so that calling the
 * iterator by hand on a run of them is paid for. */
static int utf8_iter(lua_State *L)
{
	size_t len;
	const char *s = lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &len) : NULL;
	int isint;
	lua_Integer i = lua_tointegerx(L, 2, &isint);
	double skip = 0;
	if (s && isint && i >= 0 && (lua_Unsigned)i < len)
		for (size_t k = (size_t)i; k < len && ((unsigned char)s[k] & 0xC0) == 0x80; k++)
			skip++;
	charge(L, COST_ELEM + skip * COST_BYTE);
	return ORIG(L)(L);
}

/* utf8.codes(s [, lax]): the original's iterator replaced by its charged wrapper (upvalues 2
 * and 3, one per iterator the original returns, so each call returns the same function). */
static int utf8_codes(lua_State *L)
{
	int n = ORIG(L)(L);
	for (int u = 2; n == 3 && u <= 3; u++) {
		lua_getupvalue(L, lua_upvalueindex(u), 1); /* the iterator it wraps */
		bool same = lua_rawequal(L, -1, -4);
		lua_pop(L, 1);
		if (same) {
			lua_pushvalue(L, lua_upvalueindex(u));
			lua_replace(L, -4);
		}
	}
	return n;
}

/* --- table ----------------------------------------------------------------------------- */

#define TAB_R 1
#define TAB_W 2
#define TAB_L 4

/* The object at i as ltablib's functions require it: a table, or something whose metatable
 * has the metamethods the access needs (else the same argument error). */
static void check_tab(lua_State *L, int i, int what)
{
	if (lua_type(L, i) == LUA_TTABLE)
		return;
	static const char *const events[] = { "__index", "__newindex", "__len" };
	bool ok = lua_getmetatable(L, i);
	for (int k = 0; ok && k < 3; k++)
		if (what & (1 << k)) {
			lua_pushstring(L, events[k]);
			ok = lua_rawget(L, -2) != LUA_TNIL;
			lua_pop(L, 1);
		}
	if (ok) {
		lua_pop(L, 1);
		return;
	}
	luaL_checktype(L, i, LUA_TTABLE); /* raises */
}

/* What one element access of the object at i costs, in accesses: 1, plus a lookup per table
 * of its __index and __newindex chains (a chain of tables runs in C, up to Lua's 2000 steps;
 * an __index function is Lua code, counted as it runs). */
static double access_cost(lua_State *L, int i)
{
	static const char *const events[] = { "__index", "__newindex" };
	double cost = 1;
	for (int k = 0; k < 2; k++) {
		lua_pushvalue(L, i);
		for (int depth = 0; depth < 2000 && lua_getmetatable(L, -1); depth++) {
			lua_pushstring(L, events[k]);
			int t = lua_rawget(L, -2);
			lua_remove(L, -2); /* the metatable */
			lua_remove(L, -2); /* the object */
			if (t != LUA_TTABLE)
				break;
			cost++;
		}
		lua_pop(L, 1);
	}
	charge(L, cost);
	return cost;
}

/* __len of a proxy: the length measured once (upvalue 1). */
static int proxy_len(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	return 1;
}

/* The length of the table argument at 1, as the original will see it: ltablib's functions read
 * it with a __len metamethod when there is one, which the wrapper must not call twice (a
 * second answer could be larger than the one charged). Then argument 1 becomes a proxy: an
 * empty table whose __index and __newindex are the object and whose __len answers this
 * length, through which the original reads and writes the object as it would directly. */
static lua_Integer tab_len(lua_State *L, int what)
{
	check_tab(L, 1, what);
	bool meta_len = lua_type(L, 1) != LUA_TTABLE || luaL_getmetafield(L, 1, "__len") != LUA_TNIL;
	if (meta_len && lua_type(L, 1) == LUA_TTABLE)
		lua_pop(L, 1);
	lua_Integer n = luaL_len(L, 1);
	if (meta_len) {
		lua_createtable(L, 0, 0);
		lua_createtable(L, 0, 3);
		lua_pushvalue(L, 1);
		lua_setfield(L, -2, "__index");
		lua_pushvalue(L, 1);
		lua_setfield(L, -2, "__newindex");
		lua_pushinteger(L, n);
		lua_pushcclosure(L, proxy_len, 1);
		lua_setfield(L, -2, "__len");
		lua_setmetatable(L, -2);
		lua_replace(L, 1);
	}
	return n;
}

/* table.concat(list [, sep [, i [, j]]]): an element read per index of the range. */
static int tab_concat(lua_State *L)
{
	double m = access_cost(L, 1);
	lua_Integer last = tab_len(L, TAB_R | TAB_L);
	size_t lsep;
	luaL_optlstring(L, 2, "", &lsep);
	charge_numstr(L, 3, 4);
	lua_Integer i = luaL_optinteger(L, 3, 1);
	last = luaL_optinteger(L, 4, last);
	if (last >= i)
		charge(L, ((double)last - (double)i + 1) * (COST_ELEM * m + (double)lsep / COST_CMP_BYTES));
	return ORIG(L)(L);
}

/* table.insert(list, [pos,] value): the elements after pos moved up. */
static int tab_insert(lua_State *L)
{
	double m = access_cost(L, 1);
	lua_Integer e = tab_len(L, TAB_R | TAB_W | TAB_L);
	if (lua_gettop(L) == 3)
		charge_numstr(L, 2, 2);
	if (lua_gettop(L) == 3 && e < LUA_MAXINTEGER) {
		lua_Integer pos = opt_int(L, 2, 0);
		if ((lua_Unsigned)pos - 1u < (lua_Unsigned)e + 1)
			charge(L, ((double)e + 1 - (double)pos) * COST_MOVE * m);
	}
	return ORIG(L)(L);
}

/* table.remove(list [, pos]): the elements after pos moved down. */
static int tab_remove(lua_State *L)
{
	double m = access_cost(L, 1);
	lua_Integer size = tab_len(L, TAB_R | TAB_W | TAB_L);
	charge_numstr(L, 2, 2);
	lua_Integer pos = opt_int(L, 2, size);
	if (pos < size && (lua_Unsigned)pos - 1u <= (lua_Unsigned)size)
		charge(L, ((double)size - (double)pos) * COST_MOVE * m);
	return ORIG(L)(L);
}

/* The longest string among list[1..n], found as the original will read them without calling
 * Lua: raw reads down the __index chain of tables (an __index function's values are Lua's,
 * counted as they are made, and compared under the CPU-time backstop). */
static double longest_string(lua_State *L, lua_Integer n)
{
	size_t longest = 0;
	for (lua_Integer i = 1; i <= n; i++) {
		lua_pushvalue(L, 1); /* the object, then each table of its __index chain */
		for (int depth = 0; depth < 2000; depth++) {
			if (lua_type(L, -1) == LUA_TTABLE) {
				size_t l;
				int t = lua_rawgeti(L, -1, i);
				if (t == LUA_TSTRING && (lua_tolstring(L, -1, &l), l > longest))
					longest = l;
				lua_pop(L, 1);
				if (t != LUA_TNIL)
					break;
			}
			if (!lua_getmetatable(L, -1))
				break;
			lua_pushliteral(L, "__index");
			lua_rawget(L, -2);
			lua_remove(L, -2); /* the metatable */
			lua_remove(L, -2); /* the object */
			if (lua_type(L, -1) != LUA_TTABLE)
				break;
		}
		lua_pop(L, 1);
	}
	return (double)longest;
}

/* table.sort(list [, comp]): about n log2 n comparisons, each reading elements; with Lua's <,
 * strings compare in C at the length of the longest. */
static int tab_sort(lua_State *L)
{
	double m = access_cost(L, 1);
	lua_Integer n = tab_len(L, TAB_R | TAB_W | TAB_L);
	if (n > 1 && n < INT_MAX && (lua_isnoneornil(L, 2) || lua_isfunction(L, 2))) {
		double levels = ceil(log2((double)n));
		charge(L, (double)n * levels * COST_SORT * m);
		if (lua_isnoneornil(L, 2))
			charge(L, (double)n * levels * 2 * longest_string(L, n) / COST_CMP_BYTES);
	}
	return ORIG(L)(L);
}

/* table.unpack(list [, i [, j]]): an element read and pushed per index (at most the stack's
 * million: a longer range is the original's "too many results"). The length is read here, once,
 * and handed on as j. */
#define STACK_MAX 1000000 /* LUAI_MAXSTACK */

static int tab_unpack(lua_State *L)
{
	charge_numstr(L, 2, 3);
	lua_Integer i = luaL_optinteger(L, 2, 1);
	if (lua_isnoneornil(L, 3)) {
		lua_Integer e = luaL_len(L, 1);
		lua_settop(L, 2);
		lua_pushinteger(L, e);
	}
	lua_Integer e = luaL_checkinteger(L, 3);
	if (i <= e && (lua_Unsigned)e - (lua_Unsigned)i < STACK_MAX) {
		double m = access_cost(L, 1);
		charge(L, ((double)e - (double)i + 1) * COST_ELEM * m);
	}
	return ORIG(L)(L);
}

/* table.pack(...): a field set per argument. */
static int tab_pack(lua_State *L)
{
	charge(L, (double)lua_gettop(L) * COST_ELEM);
	return ORIG(L)(L);
}

/* table.move(a1, f, e, t [, a2]): an element moved per index, and at most 2^24 of them (a move
 * within the cap still costs its elements). */
#define SCRIPT_MOVE_MAX (1 << 24)

static int tab_move(lua_State *L)
{
	charge_numstr(L, 2, 4);
	lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
	luaL_checkinteger(L, 4);
	if (e >= f && (lua_Unsigned)e - (lua_Unsigned)f >= SCRIPT_MOVE_MAX)
		return luaL_error(L, "table.move of more than %d elements", SCRIPT_MOVE_MAX);
	if (e >= f) {
		double m = access_cost(L, 1) + (lua_isnoneornil(L, 5) ? 0 : access_cost(L, 5));
		charge(L, ((double)e - (double)f + 1) * COST_MOVE * m);
	}
	return ORIG(L)(L);
}

/* --- base and math --------------------------------------------------------------------- */

/* tonumber(v [, base]): v scanned a byte at a time. */
static int base_tonumber(lua_State *L)
{
	charge(L, (len_of(L, 1) + len_of(L, 2)) * COST_BYTE);
	return ORIG(L)(L);
}

/* rawequal(a, b): two long strings compared with memcmp. */
static int base_rawequal(lua_State *L)
{
	double a = len_of(L, 1), b = len_of(L, 2);
	charge(L, (a < b ? a : b) / COST_CMP_BYTES);
	return ORIG(L)(L);
}

/* rawget(t, k), rawset(t, k, v): a long string key compared with an equal one stored. */
static int base_rawkey(lua_State *L)
{
	charge(L, len_of(L, 2) / COST_CMP_BYTES);
	return ORIG(L)(L);
}

/* math.*: numbers given as strings converted (math.max and math.min take any number of them),
 * and a comparison per argument. */
static int math_numeric(lua_State *L)
{
	charge_numstr(L, 1, -1);
	charge(L, (double)lua_gettop(L));
	return ORIG(L)(L);
}

/* --- installing ------------------------------------------------------------------------ */

struct wrap {
	const char *name;
	lua_CFunction fn;
};

static const struct wrap string_wraps[] = {
	{ "byte", str_byte },	       { "char", str_char },	     { "format", str_format },
	{ "lower", str_bytewise },     { "upper", str_bytewise },    { "reverse", str_bytewise },
	{ "rep", str_rep },	       { "sub", str_sub },	     { "pack", str_pack },
	{ "packsize", str_packsize },  { "unpack", str_unpack },     { NULL, NULL },
};
static const struct wrap table_wraps[] = {
	{ "concat", tab_concat }, { "insert", tab_insert }, { "remove", tab_remove },
	{ "sort", tab_sort },	  { "unpack", tab_unpack }, { "pack", tab_pack },
	{ "move", tab_move },	  { NULL, NULL },
};
static const struct wrap utf8_wraps[] = {
	{ "char", utf8_char },		{ "len", utf8_len },	     { "codepoint", utf8_codepoint },
	{ "offset", utf8_offset },	{ NULL, NULL },
};
static const struct wrap base_wraps[] = {
	{ "tonumber", base_tonumber }, { "rawequal", base_rawequal }, { "rawget", base_rawkey },
	{ "rawset", base_rawkey },     { NULL, NULL },
};
static const char *const string_arith[] = { "__add", "__sub", "__mul", "__mod", "__pow",
					    "__div", "__idiv", "__unm", NULL };

/* t[name] = fn with the original t[name] as its upvalue (table on top). */
static void wrap_field(lua_State *L, const char *name, lua_CFunction fn)
{
	if (lua_getfield(L, -1, name) != LUA_TFUNCTION || !lua_tocfunction(L, -1))
		BUG("the Lua library has no C function '%s'", name);
	lua_pushcclosure(L, fn, 1);
	lua_setfield(L, -2, name);
}

static void wrap_lib(lua_State *L, const char *lib, const struct wrap *w)
{
	if (lib)
		lua_getglobal(L, lib);
	else
		lua_pushglobaltable(L);
	for (; w->name; w++)
		wrap_field(L, w->name, w->fn);
	lua_pop(L, 1);
}

void costs_install(lua_State *L)
{
	wrap_lib(L, LUA_STRLIBNAME, string_wraps);
	wrap_lib(L, LUA_TABLIBNAME, table_wraps);
	wrap_lib(L, LUA_UTF8LIBNAME, utf8_wraps);
	wrap_lib(L, NULL, base_wraps);

	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushcfunction(L, str_find);
	lua_setfield(L, -2, "find");
	static const char *const patterns[] = { "match", "gmatch", "gsub" };
	for (size_t i = 0; i < ARRAY_SIZE(patterns); i++) {
		lua_pushcfunction(L, no_pattern);
		lua_setfield(L, -2, patterns[i]);
	}
	lua_pop(L, 1);

	/* every math function but random and randomseed, which keep their generator's state
	 * as an upvalue (and take at most two numbers); the names stay alive in the table */
	const char *names[64];
	size_t nnames = 0;
	lua_getglobal(L, LUA_MATHLIBNAME);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		if (lua_type(L, -2) == LUA_TSTRING && lua_tocfunction(L, -1) && nnames < ARRAY_SIZE(names))
			names[nnames++] = lua_tostring(L, -2);
		lua_pop(L, 1);
	}
	for (size_t i = 0; i < nnames; i++)
		if (strcmp(names[i], "random") && strcmp(names[i], "randomseed"))
			wrap_field(L, names[i], math_numeric);
	lua_pop(L, 1);

	/* utf8.codes' iterators: call codes once for each (strict, lax) to get them */
	lua_getglobal(L, LUA_UTF8LIBNAME);
	lua_getfield(L, -1, "codes");
	int codes = lua_gettop(L);
	for (int lax = 0; lax <= 1; lax++) {
		lua_pushvalue(L, codes);
		lua_pushliteral(L, "");
		lua_pushboolean(L, lax);
		lua_call(L, 2, 3);
		lua_pop(L, 2);
		lua_pushcclosure(L, utf8_iter, 1);
	}
	lua_pushcclosure(L, utf8_codes, 3);
	lua_setfield(L, -2, "codes");
	lua_pop(L, 1);

	/* the string metatable's arithmetic ("10" + 1) */
	lua_pushliteral(L, "");
	lua_getmetatable(L, -1);
	for (const char *const *e = string_arith; *e; e++)
		wrap_field(L, *e, str_arith);
	lua_pop(L, 2);
}
