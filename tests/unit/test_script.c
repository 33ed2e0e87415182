/* test_script.c: the Lua sandbox (script.h): what a heuristic can and cannot reach, the
 * instruction budget and the memory cap ending runaway scripts with an error (also through
 * pcall), error reports located in the script, rank()'s results read strictly, the context a
 * script sees, libraries from scripts/lib; a fit's measurements (device.fit_points, built when
 * read) and the measured-neighbour mean (neighbours.h, tunetab.neighbours) against the
 * per-point arithmetic moe_cost.lua did in Lua. */
#include <stdlib.h>
#include <unistd.h>

#include <math.h>

#include "script/neighbours.h"
#include "script/script.h"
#include "ttest.h"
#include "base/util.h"

static char *script_path;

/* Writes text as a script file (one temporary folder per test file run). */
static const char *put(const char *text)
{
	if (!script_path) {
		char dir[] = "/tmp/tunetab-unit-script-XXXXXX";
		CHECK(mkdtemp(dir) != NULL);
		script_path = xasprintf("%s/h.lua", dir);
	}
	CHECK_INT(write_file_atomic(script_path, text, strlen(text), 0644), 0);
	return script_path;
}

static void done(void)
{
	if (!script_path)
		return;
	unlink(script_path);
	*strrchr(script_path, '/') = '\0';
	rmdir(script_path);
	free(script_path);
	script_path = NULL;
}

/* script_open on text with a memory cap (MiB) and an instruction budget; the diagnostic of a
 * failure in *msg (caller frees), with its line in *line. */
static int open_text(const char *text, size_t mib, unsigned long long instr, struct script **sc,
		     char **msg, int *line)
{
	struct script_limits lim = { .mem_bytes = mib << 20, .instructions = instr };
	struct diags d = DIAGS_INIT;
	int rc = script_open(sc, ".", put(text), &lim, &d);
	*msg = d.n ? xstrdup(d.v[0].msg) : NULL;
	if (line)
		*line = d.n ? d.v[0].line : -1;
	if (d.n)
		CHECK_STR(d.v[0].file, script_path);
	CHECK_INT(d.n, rc ? 1 : 0);
	diags_release(&d);
	return rc;
}

/* The error a script body ends with (TT_SCRIPT), or NULL when it opens. */
static char *body_error(const char *text, size_t mib, unsigned long long instr, int *line)
{
	struct script *sc;
	char *msg;
	int rc = open_text(text, mib, instr, &sc, &msg, line);
	if (rc == TT_OK)
		script_close(sc);
	else
		CHECK_INT(rc, TT_SCRIPT);
	return msg;
}

#define REG "\ntunetab.heuristic{ name = 'x', rank = function(q) return {} end }\n"

TEST(script_sandbox_surface)
{
	/* the script reports what it can reach as an error message */
	static const char probe[] =
		"local names = { 'dofile', 'loadfile', 'require', 'collectgarbage', 'io', 'os',\n"
		"  'package', 'debug', 'coroutine', 'string', 'table', 'math', 'utf8', 'load',\n"
		"  'pcall', 'setmetatable', 'print', 'tunetab' }\n"
		"local out = {}\n"
		"for _, n in ipairs(names) do out[#out + 1] = n .. '=' .. type(_G[n]) end\n"
		"out[#out + 1] = 'dump=' .. type(string.dump)\n"
		"for _, f in ipairs({ 'match', 'gmatch', 'gsub' }) do\n"
		"  local ok, e = pcall(string[f], 'abc', 'b')\n"
		"  out[#out + 1] = f .. '=' .. tostring(ok)\n"
		"end\n"
		"out[#out + 1] = 'find=' .. tostring(string.find('a.c', '.', 1, true))\n"
		"out[#out + 1] = 'findpat=' .. tostring((pcall(string.find, 'abc', 'b.')))\n"
		"out[#out + 1] = 'findplain=' .. tostring(string.find('abc', 'c'))\n"
		"out[#out + 1] = 'bin=' .. tostring((load('\\27Lua\\x54\\x00')))\n"
		"out[#out + 1] = 'text=' .. tostring(load('return 6 * 7')())\n"
		"out[#out + 1] = 'env=' .. tostring(load('return x', 't', 't', { x = 5 })())\n"
		"out[#out + 1] = 'gc=' .. tostring((pcall(setmetatable, {}, { __gc = print })))\n"
		"out[#out + 1] = 'mt=' .. tostring((pcall(setmetatable, {}, { __index = print })))\n"
		"out[#out + 1] = 'move=' .. tostring((pcall(table.move, {}, 1, 1 << 30, 2)))\n"
		"out[#out + 1] = 'rep=' .. #string.rep('', 1 << 40) .. ',' .. string.rep('ab', 3, '-')\n"
		"out[#out + 1] = 'version=' .. tunetab.version\n"
		"error(table.concat(out, ' '), 0)\n";
	int line;
	char *msg = body_error(probe, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: dofile=nil loadfile=nil "
		  "require=nil collectgarbage=nil io=nil os=nil package=nil debug=nil coroutine=nil "
		  "string=table table=table math=table utf8=table load=function pcall=function "
		  "setmetatable=function print=function tunetab=table dump=nil match=false "
		  "gmatch=false gsub=false find=2 findpat=false findplain=3 bin=nil text=42 env=5 "
		  "gc=false mt=true move=false rep=0,ab-ab-ab version=" TUNETAB_VERSION);
	CHECK_INT(line, 0); /* level 0: no position in the message */
	free(msg);

	/* the messages a script sees for each refusal */
	msg = body_error("string.match('a', 'a')" REG, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: string patterns are not "
		  "available in heuristic scripts (they run outside the instruction budget)");
	CHECK_INT(line, 1);
	free(msg);
	msg = body_error("\nsetmetatable({}, { __gc = function() end })" REG, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: __gc metamethods are not "
		  "allowed in heuristic scripts");
	CHECK_INT(line, 2);
	free(msg);
	msg = body_error("table.move({}, 1, (1 << 24) + 1, 2)" REG, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: table.move of more than "
		  "16777216 elements");
	free(msg);
	msg = body_error("assert(load(string.char(27) .. 'Lua'))" REG, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: attempt to load a binary chunk "
		  "(mode is 't')");
	free(msg);

	/* globals a library sets stay in the library */
	msg = body_error("local r = tunetab.lib('roofline')\n"
			 "local w = tunetab.lib('waves')\n"
			 "error(type(r.flops) .. ' ' .. type(w.waves) .. ' ' .. tostring(rawequal(r, "
			 "tunetab.lib('roofline'))) .. ' ' .. type(flops), 0)" REG, 16, 10000000, NULL);
	CHECK_STR(msg, "script error while running the script body: function function true nil");
	free(msg);
	msg = body_error("tunetab.lib('../x')" REG, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: library name '../x' must be "
		  "[a-z0-9_]+");
	free(msg);
	msg = body_error("tunetab.lib('nope')" REG, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: no library 'nope' "
		  "(./scripts/lib/nope.lua)");
	free(msg);
	done();
}

TEST(script_budgets_stop_runaways)
{
	int line;
	/* a loop in the body */
	char *msg = body_error("local i = 0\nwhile true do i = i + 1 end" REG, 16, 1000000, &line);
	CHECK_STR(msg, "script exceeded its instruction budget of 1000000 while running the script "
		  "body");
	CHECK_INT(line, 2);
	free(msg);
	/* pcall does not swallow it */
	msg = body_error("while true do pcall(function() while true do end end) end" REG, 16, 1000000,
			 &line);
	CHECK_STR(msg, "script exceeded its instruction budget of 1000000 while running the script "
		  "body");
	free(msg);
	/* one big allocation counts against the budget (16 bytes an instruction) */
	msg = body_error("local s = string.rep('x', 1 << 26)" REG, 256, 1000000, &line);
	CHECK_STR(msg, "script exceeded its instruction budget of 1000000 while running the script "
		  "body");
	free(msg);
	/* the memory cap, also when pcall catches each failure (the budget ends the loop) */
	msg = body_error("local s = 'x'\nwhile true do s = s .. s end" REG, 16, 100000000, &line);
	CHECK_STR(msg, "script exceeded its memory cap of 16 MiB while running the script body");
	free(msg);
	msg = body_error("local t = {}\nwhile true do pcall(function() t[#t + 1] = string.rep('y', "
			 "1 << 20) .. #t end) end" REG, 16, 2000000, &line);
	CHECK(msg && str_starts(msg, "script exceeded its "));
	free(msg);
	/* deep recursion is a Lua error, not a crash */
	msg = body_error("local function f(n) return 1 + f(n + 1) end\nf(1)" REG, 64, 100000000, &line);
	CHECK(msg && strstr(msg, "stack overflow"));
	CHECK_INT(line, 1);
	free(msg);
	/* error objects that are not strings */
	msg = body_error("error({})" REG, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: (error object is a table value)");
	free(msg);
	msg = body_error("error(setmetatable({}, { __tostring = function() return 'custom' end }))"
			 REG, 16, 1000000, &line);
	CHECK_STR(msg, "script error while running the script body: custom");
	free(msg);
	/* a long message is cut */
	msg = body_error("error(string.rep('z', 5000), 0)" REG, 16, 1000000, &line);
	CHECK(msg && strlen(msg) == strlen("script error while running the script body: ") + 1024 &&
	      str_ends(msg, "zzz..."));
	free(msg);
	done();
}

static const struct tactic cands[3] = {
	{ .id = 5, .local = 0, .stage = 1, .m = 128, .n = 16, .k_bytes = 128, .k_elems = 64,
	  .cluster = { 1, 1, 1 }, .dispatchable = true, .note = "first" },
	{ .id = 9, .local = 1, .stage = 1, .m = 128, .n = 64, .k_bytes = 128, .k_elems = 64,
	  .cluster = { 2, 1, 1 }, .mma = MMA_2SM, .epilogue = EPI_NO_SMEM, .swap_ab = true,
	  .dyn_cluster = { 4, 1, 1 }, .dispatchable = true },
	{ .id = 12, .local = 2, .stage = 1, .m = 64, .n = 128, .k_bytes = 128, .k_elems = 64,
	  .cluster = { 1, 1, 1 }, .sm80_style = true, .stages = 3, .sm_version = 80,
	  .static_cluster = true, .dispatchable = false },
};

static const struct script_device dev = {
	.name = "NVIDIA H200", .sm = 90, .sm_count = 132, .smem_per_block_optin = 232448,
	.smem_per_sm = -1, .l2_bytes = 62914560, .memory_bandwidth_gbs = 4800,
	.boost_clock_mhz = -1, .tflops_bf16 = 989, .tflops_fp8 = 1979, .tflops_fp4 = -1,
};
static const struct script_deploy sdep = {
	.model = "Qwen3-30B-A3B", .dtype = "bf16", .act_bits = 16, .weight_bits = 16, .out_bits = 16,
	.hidden = 2048, .inter = 768, .experts = 128, .experts_total = 128, .top_k = 8, .tp = 1,
	.ep = 1, .gated = true, .activation = "swiglu",
};

/* Opens text, sets the context above and ranks cands at stage 1, 16 tokens; the ranking in
 * out/nout, the error message in *msg. */
static int rank_text(const char *text, unsigned long long instr, struct script_rank *out,
		     size_t *nout, char **msg)
{
	struct script *sc;
	*msg = NULL;
	*nout = 0;
	int rc = open_text(text, 16, instr, &sc, msg, NULL);
	if (rc)
		return rc;
	struct diags d = DIAGS_INIT;
	rc = script_set_context(sc, &dev, &sdep, &d);
	if (!rc)
		rc = script_rank(sc, 1, 16, 1536, 2048, cands, 3, 5, out, nout, &d);
	*msg = d.n ? xstrdup(d.v[0].msg) : NULL;
	CHECK_STR(script_heuristic_name(sc), "t");
	diags_release(&d);
	script_close(sc);
	return rc;
}

#define RANK(body) "tunetab.heuristic{ name = 't', rank = function(q)\n" body "\nend }\n"

TEST(script_rank_results)
{
	struct script_rank out[3];
	size_t n;
	char *msg;
	/* ids and {id, time}; duplicates dropped; order kept */
	CHECK_INT(rank_text(RANK("return { 12, { id = 9, time = 2.5 }, 12, { id = 5 } }"), 1000000,
			    out, &n, &msg), TT_OK);
	CHECK(msg == NULL);
	CHECK_INT(n, 3);
	CHECK(n == 3 && out[0].id == 12 && out[0].time_us == -1 && out[1].id == 9 &&
	      out[1].time_us == 2.5 && out[2].id == 5 && out[2].time_us == -1);
	CHECK_INT(rank_text(RANK("return {}"), 1000000, out, &n, &msg), TT_OK);
	CHECK_INT(n, 0);

	static const struct {
		const char *body, *msg;
	} bad[] = {
		{ "return 'x'", "rank() must return a list of candidates (ids or {id=, time=}), not string" },
		{ "return nil", "rank() must return a list of candidates (ids or {id=, time=}), not nil" },
		{ "return { 5, 7 }", "rank() returned an unknown id at position 2, which is not a "
				     "candidate id of GEMM1" },
		{ "return { 5, 'nine' }", "rank() returned a non-integer at position 2, which is not a "
					  "candidate id of GEMM1" },
		{ "return { 9.5 }", "rank() returned a non-integer at position 1, which is not a "
				    "candidate id of GEMM1" },
		{ "return { { time = 1 } }", "rank() returned a non-integer at position 1, which is "
					     "not a candidate id of GEMM1" },
		{ "local t = {}\n  return t.x.y", "script error while ranking GEMM1 at 16 tokens: "
						  "attempt to index a nil value (field 'x')" },
		{ "while true do end", "script exceeded its instruction budget of 1000000 while "
				       "ranking GEMM1 at 16 tokens" },
		/* a metatable on the result is not consulted */
		{ "return setmetatable({}, { __len = function() return 1 end, __index = "
		  "function() return 5 end })", NULL },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *text = xasprintf(RANK("%s"), bad[i].body);
		int rc = rank_text(text, 1000000, out, &n, &msg);
		CHECK_INT(rc, bad[i].msg ? TT_SCRIPT : TT_OK);
		if (bad[i].msg)
			CHECK_STR(msg, bad[i].msg);
		else
			CHECK_INT(n, 0);
		free(msg);
		free(text);
	}
	done();
}

TEST(script_context_seen)
{
	/* everything q holds, as the script sees it */
	static const char text[] = RANK(
		"local c = q.candidates\n"
		"local d, p = q.device, q.deploy\n"
		"error(table.concat({ q.stage, q.tokens, q.features, q.k, q.fallback, #c,\n"
		"  d.name, d.sm, d.sm_count, tostring(d.smem_per_sm), d.l2_bytes,\n"
		"  tostring(d.boost_clock_mhz), d.dense_tflops.bf16, tostring(d.dense_tflops.fp4),\n"
		"  tostring(d.calibration), p.model, p.dtype, p.act_bits, p.hidden, p.inter, p.experts,\n"
		"  p.top_k, tostring(p.gated), p.activation,\n"
		"  c[1].id, c[1].local_id, c[1].m, c[1].n, c[1].k, c[1].k_bytes, c[1].mma,\n"
		"  c[1].epilogue, tostring(c[1].swap_ab), tostring(c[1].dyn_cluster), c[1].note,\n"
		"  c[2].mma, c[2].epilogue, tostring(c[2].swap_ab), table.concat(c[2].cluster, 'x'),\n"
		"  table.concat(c[2].dyn_cluster, 'x'), tostring(c[2].note),\n"
		"  c[3].mma, tostring(c[3].sm80), c[3].stages, c[3].sm_version, c[3].dyn_cluster,\n"
		"  tostring(c[3].dispatchable) }, ' '), 0)");
	struct script_rank out[3];
	size_t n;
	char *msg;
	CHECK_INT(rank_text(text, 1000000, out, &n, &msg), TT_SCRIPT);
	CHECK_STR(msg, "script error while ranking GEMM1 at 16 tokens: 1 16 1536 2048 5 3 "
		  "NVIDIA H200 90 132.0 nil 62914560.0 nil 989.0 nil nil Qwen3-30B-A3B bf16 16 2048 "
		  "768 128 8 true swiglu 5 0 128 16 64 128 1sm tma false nil first 2sm no_smem true "
		  "2x1x1 4x1x1 nil sm80 true 3 80 static false");
	free(msg);
	/* the instruction count grows with the work done */
	struct script *sc;
	CHECK_INT(open_text(RANK("local s = 0\nfor i = 1, 100000 do s = s + i end\nreturn { 5 }"), 16,
			    100000000, &sc, &msg, NULL), TT_OK);
	struct diags d = DIAGS_INIT;
	CHECK_INT(script_set_context(sc, &dev, &sdep, &d), TT_OK);
	unsigned long long before = script_instructions(sc);
	CHECK_INT(script_rank(sc, 1, 16, 1536, 2048, cands, 3, 5, out, &n, &d), TT_OK);
	CHECK(n == 1 && out[0].id == 5);
	CHECK(script_instructions(sc) >= before + 100000);
	script_close(sc);
	CHECK_INT(d.n, 0);
	diags_release(&d);

	/* what script_open refuses */
	CHECK_INT(open_text("-- nothing\n", 16, 1000000, &sc, &msg, NULL), TT_SCRIPT);
	CHECK_STR(msg, "the script registered no heuristic: call tunetab.heuristic{ name = ..., "
		  "rank = function(q) ... end }");
	free(msg);
	CHECK_INT(open_text("tunetab.heuristic{ name = string.rep('n', 65), rank = print }", 16,
			    1000000, &sc, &msg, NULL), TT_SCRIPT);
	CHECK_STR(msg, "script error while running the script body: heuristic name must be 1 to "
		  "64 characters");
	free(msg);
	CHECK_INT(open_text("tunetab.heuristic{ name = 'n' }", 16, 1000000, &sc, &msg, NULL),
		  TT_SCRIPT);
	CHECK_STR(msg, "script error while running the script body: tunetab.heuristic{...} needs a "
		  "'rank' function");
	free(msg);
	int line;
	CHECK_INT(open_text("\n\nlocal x = = 1", 16, 1000000, &sc, &msg, &line), TT_SCRIPT);
	CHECK_STR(msg, "script error while loading: unexpected symbol near '='");
	CHECK_INT(line, 3);
	free(msg);
	done();
	struct script_limits lim = { .mem_bytes = 16u << 20, .instructions = 1000000 };
	CHECK_INT(script_open(&sc, ".", "/nonexistent/h.lua", &lim, &d), TT_SCRIPT);
	CHECK(sc == NULL);
	CHECK_STR(d.n ? d.v[0].msg : NULL, "cannot read heuristic script: '/nonexistent' does not exist");
	diags_release(&d);
	script_close(NULL);
}

/* A fit's measurements: stage 1 "A" (two points at one place), "B" twice (the last answers),
 * stage 2 "A". */
static const struct fit_point pa[] = {
	{ 0.5, 1536, 2048, 16, 0.0 }, { 4, 1536, 2048, 16, 0.25 }, { 0.5, 1536, 2048, 16, 0.125 },
	{ 64, 7168, 2048, 8, 1.5 },
};
static const struct fit_point pb[] = { { 2, 3072, 4096, 16, 0.75 }, { 0.5, 1536, 2048, 16, 2 } };
static const struct fit_point pb2[] = { { 8, 1536, 2048, 16, 0.5 } };
static const struct fit_point p2[] = { { 1, 2048, 768, 16, 0.3 } };
static const struct fit_group groups[] = {
	{ (char *)"A", 1, (struct fit_point *)pa, 4 },
	{ (char *)"B", 1, (struct fit_point *)pb, 2 },
	{ (char *)"A", 2, (struct fit_point *)p2, 1 },
	{ (char *)"B", 1, (struct fit_point *)pb2, 1 },
};

/* moe_cost.lua's estimate as it was, point by point (shift: by point) */
static double lua_estimate(const struct fit_point *g, size_t n, const double at[5], double prior,
			   double mrel, const double *shift, double pq)
{
	double ll = log(1 + at[0]), lf = log(at[1]), lk = log(at[2]), lb = log(at[3]);
	double inv = 1 / (at[4] * at[4]), log2 = log(2);
	double num = prior * mrel, den = prior;
	for (size_t i = 0; i < n; i++) {
		double a = log(1 + g[i].l) - ll;
		double b = log(g[i].f) - lf;
		double e = log(g[i].k) - lk;
		double h = (log(g[i].b) - lb) / log2;
		double w = exp(-(a * a + b * b + e * e + h * h) * inv);
		double r = g[i].r;
		if (shift)
			r = r + (pq - shift[i]);
		num = num + w * r;
		den = den + w;
	}
	return num / den;
}

TEST(script_neighbours)
{
	struct nb_index *x = nb_index_new(groups, 4, 1);
	CHECK_INT(x->ngroups, 3);
	CHECK_INT(x->nsites, 5); /* A's 0.5 place is B's second point's too */
	CHECK_INT(nb_find(x, "A"), 0);
	CHECK_INT(nb_find(x, "B"), 2);
	CHECK_INT(nb_find(x, "C"), -1);
	static const double ats[][5] = { { 1, 1536, 2048, 16, 1 }, { 0.03125, 7168, 2048, 8, 0.71 },
					 { 300, 4096, 7168, 4, 2 } };
	for (size_t i = 0; i < 3; i++) {
		double got = nb_mean(x, 0, ats[i], 0.1, 0.4, NULL, 0);
		double want = lua_estimate(pa, 4, ats[i], 0.1, 0.4, NULL, 0);
		CHECK(!memcmp(&got, &want, sizeof got));
		got = nb_mean(x, 2, ats[i], 0.1, 0.4, NULL, 0);
		want = lua_estimate(pb2, 1, ats[i], 0.1, 0.4, NULL, 0);
		CHECK(!memcmp(&got, &want, sizeof got));
		/* a shift by site is the same shift by point */
		double by_site[5], by_point[4];
		for (size_t k = 0; k < 5; k++)
			by_site[k] = 0.1 * (double)k + 0.05;
		for (size_t k = 0; k < 4; k++)
			by_point[k] = by_site[x->pt_site[k]];
		got = nb_mean(x, 0, ats[i], 0.1, 0.4, by_site, 0.3);
		want = lua_estimate(pa, 4, ats[i], 0.1, 0.4, by_point, 0.3);
		CHECK(!memcmp(&got, &want, sizeof got));
	}
	nb_index_free(x);

	/* what a script sees: fit_points as it always was, built when read; tunetab.neighbours */
	char want[96];
	snprintf(want, sizeof want, "%.17g", lua_estimate(pa, 4, ats[1], 0.1, 0.4, NULL, 0));
	static const char text[] = RANK(
		"local fp = q.device.fit_points\n"
		"local n, keys = #fp, 0\n"
		"for k in pairs(fp) do keys = keys + 1 end\n"
		"local nb = tunetab.neighbours(fp, 1)\n"
		"local m = nb:mean('A', 0.03125, 7168, 2048, 8, 0.71, 0.1, 0.4)\n"
		"local A, B = fp[1].A, fp[1].B\n"
		"local ok1, e1 = pcall(tunetab.neighbours, {}, 1)\n"
		"local ok2, e2 = pcall(tunetab.neighbours, fp, 3)\n"
		"local ok3, e3 = pcall(nb.mean, nb, 'A', 1, 1, 1, 1, 1, 0.1, 0, tunetab.neighbours(fp, 2):shift({ 0 }), 0)\n"
		"error(table.concat({ n, keys, #nb:sites(), string.format('%.17g', m),\n"
		"  tostring(nb:mean('C', 1, 1, 1, 1, 1, 0.1, 0)), #A, A[4].f, A[4].r, #B, B[1].l,\n"
		"  #fp[2].A, tostring(fp[3]), tostring(getmetatable(fp)), e1, e2, e3 }, ' '), 0)");
	struct script *sc;
	char *msg;
	CHECK_INT(open_text(text, 16, 10000000, &sc, &msg, NULL), TT_OK);
	struct script_device fdev = dev;
	fdev.groups = groups;
	fdev.ngroups = 4;
	struct diags d = DIAGS_INIT;
	CHECK_INT(script_set_context(sc, &fdev, &sdep, &d), TT_OK);
	struct script_rank out[3];
	size_t n;
	CHECK_INT(script_rank(sc, 1, 16, 1536, 2048, cands, 3, 5, out, &n, &d), TT_SCRIPT);
	char *expect = xasprintf(
		"script error while ranking GEMM1 at 16 tokens: 2 2 5 %s nil 4 7168.0 1.5 1 8.0 1 nil "
		"false tunetab.neighbours: argument 1 is not a fit's measurements (q.device.fit_points) "
		"tunetab.neighbours: stage must be 1 or 2, not 3 nb:mean: the shift was made by "
		"another neighbours object", want);
	CHECK_STR(d.n ? d.v[0].msg : NULL, expect);
	free(expect);
	diags_release(&d);
	script_close(sc);
	done();
}

TTEST_SUITE(script_tests) = {
	{ "script_sandbox_surface", script_sandbox_surface },
	{ "script_budgets_stop_runaways", script_budgets_stop_runaways },
	{ "script_rank_results", script_rank_results },
	{ "script_context_seen", script_context_seen },
	{ "script_neighbours", script_neighbours },
	TTEST_END,
};
