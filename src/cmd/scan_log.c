/* cmd_scan_log.c: `tunetab scan-log`: the autotuner events of server logs, one line each, and
 * a summary per op; --keys-out writes the missed bundled keys for `generate --keys`. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/help.h"
#include "inspect/logscan.h"
#include "base/util.h"

struct scan_ctx {
	const char *name;       /* as shown: the path given, or <stdin> */
	bool json;
	struct ls_summary sum;
	json_t *events;         /* --json */
};

/* tqdm's rate as it printed it, plus the other unit (2 significant digits). */
static void add_rate(struct strbuf *sb, double rate, bool inverse)
{
	if (rate <= 0)
		sb_adds(sb, "rate unknown");
	else if (inverse)
		sb_addf(sb, "%.2f s/profile (%.2g profile/s)", 1.0 / rate, rate);
	else
		sb_addf(sb, "%.2f profile/s (%.2g s/profile)", rate, 1.0 / rate);
}

static void text_event(const struct scan_ctx *x, const struct ls_event *ev)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s:%llu: %s", x->name, ev->line, ls_kind_name(ev->kind));
	if (ev->severity)
		sb_addf(&sb, " (%s)", ev->severity);
	if (ev->op)
		sb_addf(&sb, " op=%s", ev->op);
	if (ev->runner)
		sb_addf(&sb, " runner=%s", ev->runner);
	if (ev->tactic)
		sb_addf(&sb, " tactic=%s", ev->tactic);
	switch (ev->kind) {
	case LS_CACHE_LOAD:
	case LS_CACHE_SAVE:
	case LS_LEGACY_CUDNN:
	case LS_SKIPPED_UNSUPPORTED:
	case LS_BLOCKLIST_LOADED:
	case LS_CACHE_SIZE:
		if (ev->n >= 0)
			sb_addf(&sb, " n=%lld", ev->n);
		if (ev->kind == LS_CACHE_SAVE && ev->n_new >= 0)
			sb_addf(&sb, " new=%lld previous=%lld", ev->n_new, ev->n_prev);
		if (ev->kind == LS_BLOCKLIST_LOADED && ev->n_new >= 0)
			sb_addf(&sb, " ops=%lld", ev->n_new);
		break;
	case LS_PROFILE:
		if (ev->dim[0] >= 0) {
			sb_addf(&sb, " first dynamic dim (min, opt, max)=(%lld, %lld, ", ev->dim[0], ev->dim[1]);
			if (ev->dim[2] < 0)
				sb_adds(&sb, "inf)");
			else
				sb_addf(&sb, "%lld)", ev->dim[2]);
		}
		break;
	default:
		break;
	}
	if (ev->path)
		sb_addf(&sb, " path=%s", ev->path);
	if (ev->key)
		sb_addf(&sb, " key=%s%s", ev->key, ev->key_had_hash ? " (runner hash stripped)" :
			(ev->kind == LS_BUNDLED_HIT || ev->kind == LS_BUNDLED_MISS) && !ev->key_parsed ?
			" (not a valid key)" : "");
	if (ev->shapes)
		sb_addf(&sb, " shapes=%s", ev->shapes);
	if (ev->detail && ev->kind != LS_PROFILE)
		sb_addf(&sb, ": %s", ev->detail);
	puts(sb.buf);
	sb_release(&sb);
}

static void on_event(const struct ls_event *ev, void *ctx)
{
	struct scan_ctx *x = ctx;
	ls_summary_add(&x->sum, ev);
	if (x->json)
		json_array_append_new(x->events, ls_event_json(ev));
	else if (ev->kind != LS_PROGRESS) /* bars are summarised as passes */
		text_event(x, ev);
}

static void text_summary(const struct scan_ctx *x, const struct ls_stats *st)
{
	const struct ls_summary *s = &x->sum;
	const unsigned *c = s->count;
	printf("summary of %s: %llu lines, %llu bytes%s%s\n", x->name, st->lines, st->bytes,
	       st->gzip ? ", gzip" : "", st->truncated ? ", last line unfinished" : "");
	printf("  sessions: %u started, %u ended\n", c[LS_SESSION_START], c[LS_SESSION_END]);
	if (c[LS_SGLANG_START])
		printf("  sglang autotune starts: %u\n", c[LS_SGLANG_START]);
	if (c[LS_CACHE_LOAD]) {
		printf("  json cache loads: %u, configs loaded: ", c[LS_CACHE_LOAD]);
		for (size_t i = 0; i < s->n_loads; i++)
			printf("%s%lld", i ? ", " : "", s->loads[i]);
		putchar('\n');
	}
	if (c[LS_CACHE_SAVE]) {
		printf("  json cache saves: %u, configs saved: ", c[LS_CACHE_SAVE]);
		for (size_t i = 0; i < s->n_saves; i++)
			printf("%s%lld (%lld new, %lld previous)", i ? ", " : "", s->saves[i].n,
			       s->saves[i].n_new, s->saves[i].n_prev);
		putchar('\n');
	}
	static const enum ls_kind notes[] = { LS_CACHE_MISMATCH, LS_NOT_SAVING, LS_LEGACY_CUDNN,
		LS_BLOCKLIST_LOADED, LS_BLOCKLIST_MISSING, LS_BLOCKLIST_MISMATCH, LS_SKIP_OP,
		LS_CACHE_SIZE, LS_PROFILE, LS_PROFILED, LS_CHOSEN, LS_DEBUG, LS_VLLM_DEFAULT_MOE, LS_OTHER };
	for (size_t i = 0; i < ARRAY_SIZE(notes); i++)
		if (c[notes[i]])
			printf("  %s: %u\n", ls_kind_name(notes[i]), c[notes[i]]);
	printf("  total: hits %u, misses %u, fallbacks %u, failed tactics %u\n", s->hits, s->misses,
	       s->fallbacks, s->failed);
	for (size_t i = 0; i < s->n_ops; i++) {
		const struct ls_op *op = &s->ops[i];
		printf("  op %s: hits %u, misses %u, fallbacks %u, failed tactics %u, buckets affected %zu",
		       strcmp(op->name, "-") ? op->name : "(not named in the log)", op->hits, op->misses, op->fallbacks, op->failed, op->n_affected);
		if (op->skipped_unsupported)
			printf(", unsupported tactics skipped %u", op->skipped_unsupported);
		if (op->n_passes)
			printf(", tuning %zu passes, %u updates, %lld s", op->n_passes, op->updates,
			       op->tuning_s);
		putchar('\n');
		for (size_t j = 0; j < op->n_passes; j++) {
			const struct ls_pass *p = &op->passes[j];
			struct strbuf sb = STRBUF_INIT;
			sb_addf(&sb, "    pass %zu (lines %llu-%llu): %lld/%lld%s, ", j + 1, p->first_line,
				p->last_line, p->done, p->total, p->done < p->total ? " (incomplete)" : "");
			add_rate(&sb, p->rate, p->rate_inverse);
			sb_addf(&sb, ", %u updates", p->updates);
			if (p->elapsed_s >= 0)
				sb_addf(&sb, ", %lld s", p->elapsed_s);
			puts(sb.buf);
			sb_release(&sb);
		}
	}
}

/* --keys-out: the missed keys in the form `generate --keys` reads. */
static int write_keys(const char *path, const struct ls_keyset *k)
{
	struct strbuf sb = STRBUF_INIT;
	ls_keyset_write(k, &sb);
	int err = write_file_atomic(path, sb.buf, sb.len, 0644);
	sb_release(&sb);
	if (err)
		return cli_error(TT_INTERNAL, "%s: %s", path, strerror(err));
	return TT_OK;
}

int cmd_scan_log(int argc, char **argv)
{
	if (cli_wants_help(argc, argv))
		return TT_OK;
	bool json = false;
	const char *keys_out = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "scan-log")) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'k': keys_out = optarg; break;
		default:
			return cli_usage_error("scan-log", "unknown option or missing value '%s'",
					       argv[optind - 1]);
		}
	}
	char *stdin_only[] = { "-" };
	char **files = optind < argc ? argv + optind : stdin_only;
	size_t nfiles = optind < argc ? (size_t)(argc - optind) : 1;
	for (size_t i = 0, dash = 0; i < nfiles; i++)
		if (!strcmp(files[i], "-") && ++dash > 1)
			return cli_usage_error("scan-log", "standard input '-' given twice");

	int worst = TT_OK;
	bool found = false;
	struct ls_keyset ks = { 0 };
	json_t *jfiles = json ? json_array() : NULL;
	for (size_t i = 0; i < nfiles; i++) {
		const char *path = files[i];
		bool is_stdin = !strcmp(path, "-");
		int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			worst = cli_error(TT_INTERNAL, "%s: %s", path, strerror(errno));
			continue;
		}
		struct scan_ctx x = { .name = is_stdin ? "<stdin>" : path, .json = json };
		if (json)
			x.events = json_array();
		struct ls_stats st;
		struct diags d = DIAGS_INIT;
		int rc = logscan_fd(fd, x.name, on_event, &x, &st, &d);
		if (!is_stdin)
			close(fd);
		if (rc) {
			cli_print_diags(&d);
			worst = rc;
		}
		diags_release(&d);
		if (json) {
			json_t *o = ls_summary_json(x.name, &st, &x.sum);
			json_object_set_new(o, "events", x.events);
			json_array_append_new(jfiles, o);
		} else {
			text_summary(&x, &st);
		}
		found |= ls_summary_found(&x.sum);
		ls_keyset_add(&ks, &x.sum);
		ls_summary_release(&x.sum);
	}
	if (keys_out) {
		int rc = write_keys(keys_out, &ks);
		if (rc)
			worst = rc;
		else if (!json)
			printf("keys-out: %zu missed fused-MoE key(s) written to %s%s\n", ks.n, keys_out,
			       ks.other ? " (other missed keys left out)" : "");
	}
	if (json) {
		json_t *root = json_pack("{s:o}", "files", jfiles);
		if (keys_out)
			json_object_set_new(root, "keys_out", json_pack("{s:s, s:I, s:I}", "path", keys_out,
					    "written", (json_int_t)ks.n, "left_out", (json_int_t)ks.other));
		cli_print_json(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	}
	ls_keyset_release(&ks);
	if (fflush(stdout) == EOF)
		return cli_error(TT_INTERNAL, "standard output: %s", strerror(errno));
	if (worst)
		return worst;
	return found ? TT_INVALID : TT_OK;
}
