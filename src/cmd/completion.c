/* completion.c: `tunetab completion bash|zsh`: a shell completion script made from the
 * command table: the commands, their options, and the fixed choices of option values. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "base/util.h"

/* What a value (an option's argument, an operand) completes to: the fixed choices of its name
 * ("py|json|both": lower-case words between '|'), file names (a word with FILE, DIR, PATH or a
 * '.'), or nothing. */
struct value {
	struct strbuf choices; /* space-separated */
	bool files, dirs;
};

static void value_of(const char *name, struct value *v)
{
	v->choices = (struct strbuf)STRBUF_INIT;
	v->files = v->dirs = false;
	for (const char *w = name; w && *w;) {
		size_t len = strcspn(w, "|");
		if (strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789._-") >= len) {
			sb_addf(&v->choices, "%s%.*s", v->choices.len ? " " : "", (int)len, w);
		} else {
			char word[64];
			snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), w);
			if (strstr(word, "DIR") && !strstr(word, "FILE"))
				v->dirs = true;
			else if (strstr(word, "FILE") || strstr(word, "PATH") || strchr(word, '.'))
				v->files = true;
		}
		w += len + (w[len] == '|');
	}
}

static bool shown(const struct cli_command *c)
{
	return !(c->flags & CMD_HIDDEN);
}

static void bash_command(const struct cli_command *c)
{
	const struct cli_command *all;
	size_t n = cli_commands(&all);
	bool values = false; /* an option that takes a value: a case on $prev */
	for (const struct cli_option *o = c->options; o && o->name; o++)
		values |= o->arg == ARG_REQUIRED;
	printf("    %s)\n", c->name);
	if (values)
		printf("        case $prev in\n");
	struct strbuf plain = STRBUF_INIT; /* options whose value completes to nothing */
	for (const struct cli_option *o = c->options; o && o->name; o++) {
		if (o->arg != ARG_REQUIRED)
			continue;
		struct value v;
		value_of(o->arg_name, &v);
		if (!v.choices.len && !v.files && !v.dirs) {
			if (o->short_name)
				sb_addf(&plain, "%s-%c", plain.len ? "|" : "", o->short_name);
			sb_addf(&plain, "%s--%s", plain.len ? "|" : "", o->name);
		} else {
			printf("        ");
			if (o->short_name)
				printf("-%c|", o->short_name);
			printf("--%s) COMPREPLY=(", o->name);
			if (v.choices.len)
				printf("$(compgen -W \"%s\" -- \"$cur\")%s", v.choices.buf,
				       v.files || v.dirs ? " " : "");
			if (v.files || v.dirs)
				printf("$(compgen -%c -- \"$cur\")", v.dirs ? 'd' : 'f');
			printf("); return 0;;\n");
		}
		sb_release(&v.choices);
	}
	if (plain.len)
		printf("        %s) return 0;;\n", plain.buf);
	sb_release(&plain);
	if (values)
		printf("        esac\n");
	printf("        if [[ $cur == -* ]]; then\n            COMPREPLY=($(compgen -W \"");
	for (const struct cli_option *o = c->options; o && o->name; o++)
		printf("%s--%s", o == c->options ? "" : " ", o->name);
	printf("\" -- \"$cur\"))\n");
	struct value v;
	value_of(c->operands, &v);
	if (c->operands && !strcmp(c->operands, "COMMAND")) {
		printf("        else\n            COMPREPLY=($(compgen -W \"");
		for (size_t i = 0, first = 1; i < n; i++)
			if (shown(&all[i])) {
				printf("%s%s", first ? "" : " ", all[i].name);
				first = 0;
			}
		printf("\" -- \"$cur\"))\n");
	} else if (v.choices.len) {
		printf("        else\n            COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n",
		       v.choices.buf);
	}
	sb_release(&v.choices);
	printf("        fi\n        ;;\n");
}

static void print_bash(void)
{
	const struct cli_command *all;
	size_t n = cli_commands(&all);
	printf("# bash completion for tunetab: `tunetab completion bash` made it from the command\n"
	       "# table (src/cmd.c). An empty answer falls back to file names (complete -o default).\n"
	       "_tunetab()\n{\n"
	       "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	       "    COMPREPLY=()\n"
	       "    # --opt=VALUE: bash splits the word at '=' (COMP_WORDBREAKS)\n"
	       "    if [[ $cur == = ]]; then\n        cur=\n"
	       "    elif [[ $prev == = && $COMP_CWORD -ge 3 ]]; then\n"
	       "        prev=${COMP_WORDS[COMP_CWORD-2]}\n    fi\n"
	       "    if [[ $COMP_CWORD -eq 1 ]]; then\n        COMPREPLY=($(compgen -W \"");
	for (size_t i = 0, first = 1; i < n; i++)
		if (shown(&all[i])) {
			printf("%s%s", first ? "" : " ", all[i].name);
			first = 0;
		}
	printf(" --version --help\" -- \"$cur\"))\n        return 0\n    fi\n"
	       "    case ${COMP_WORDS[1]} in\n");
	for (size_t i = 0; i < n; i++)
		if (shown(&all[i]))
			bash_command(&all[i]);
	printf("    esac\n    return 0\n}\ncomplete -o default -F _tunetab tunetab\n");
}

/* Text inside a single-quoted zsh word, '[' and ']' escaped for _arguments' explanations. */
static void zsh_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else if (*s == '[' || *s == ']' || *s == '\\' || *s == ':')
			printf("\\%c", *s);
		else
			putchar(*s);
	}
}

static void zsh_action(const struct value *v)
{
	if (v->choices.len)
		printf("(%s)", v->choices.buf);
	else if (v->dirs)
		fputs("_files -/", stdout);
	else if (v->files)
		fputs("_files", stdout);
	else
		putchar(' ');
}

static void zsh_command(const struct cli_command *c)
{
	const struct cli_command *all;
	size_t n = cli_commands(&all);
	printf("\t(%s)\n\t\t_arguments -s -S", c->name);
	for (const struct cli_option *o = c->options; o && o->name; o++) {
		const char *suffix = o->arg == ARG_REQUIRED ? "=" : o->arg == ARG_OPTIONAL ? "=-" : "";
		printf(" \\\n\t\t\t");
		if (o->short_name)
			printf("'(-%c --%s)'{-%c%s,--%s%s}'", o->short_name, o->name, o->short_name,
			       o->arg == ARG_REQUIRED ? "+" : "", o->name, suffix);
		else
			printf("'--%s%s", o->name, suffix);
		putchar('[');
		zsh_text(o->help);
		putchar(']');
		if (o->arg != ARG_NONE) {
			struct value v;
			value_of(o->arg_name, &v);
			putchar(':');
			zsh_text(o->arg_name);
			putchar(':');
			zsh_action(&v);
			sb_release(&v.choices);
		}
		putchar('\'');
	}
	if (c->operands && !strcmp(c->operands, "COMMAND")) {
		printf(" \\\n\t\t\t'1:command:(");
		for (size_t i = 0, first = 1; i < n; i++)
			if (shown(&all[i])) {
				printf("%s%s", first ? "" : " ", all[i].name);
				first = 0;
			}
		printf(")'");
	} else {
		struct value v;
		value_of(c->operands, &v);
		if (v.choices.len)
			printf(" \\\n\t\t\t'1:%s:(%s)'", c->operands, v.choices.buf);
		else
			printf(" \\\n\t\t\t'*:file:_files'");
		sb_release(&v.choices);
	}
	printf("\n\t\t;;\n");
}

static void print_zsh(void)
{
	const struct cli_command *all;
	size_t n = cli_commands(&all);
	printf("#compdef tunetab\n"
	       "# zsh completion for tunetab: `tunetab completion zsh` made it from the command\n"
	       "# table (src/cmd.c).\n\n"
	       "_tunetab() {\n\tlocal -a commands\n\tcommands=(\n");
	for (size_t i = 0; i < n; i++)
		if (shown(&all[i])) {
			printf("\t\t'%s:", all[i].name);
			zsh_text(all[i].summary);
			printf("'\n");
		}
	printf("\t)\n\tif (( CURRENT == 2 )); then\n"
	       "\t\t_describe -t commands 'tunetab command' commands\n\t\treturn\n\tfi\n"
	       "\tlocal cmd=${words[2]}\n\tshift words\n\t(( CURRENT-- ))\n\tcase $cmd in\n");
	for (size_t i = 0; i < n; i++)
		if (shown(&all[i]))
			zsh_command(&all[i]);
	printf("\tesac\n}\n\n_tunetab \"$@\"\n");
}

int cmd_completion(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "bash") && strcmp(argv[1], "zsh")))
		return cli_usage_error("completion", "want one shell: bash or zsh");
	if (!strcmp(argv[1], "bash"))
		print_bash();
	else
		print_zsh();
	return TT_OK;
}
