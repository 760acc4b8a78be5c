// SPDX-License-Identifier: GPL-2.0
/*
 * The state file's lines, written and read strictly: a line is taken only
 * in the one form record_write() gives it, so that nothing but tslackd's
 * own records can be read back (tests/fuzz/fuzz_record.c checks it).
 */
#define _GNU_SOURCE
#include <string.h>

#include "record.h"

#define MAX_TOKENS 10

struct token {
	const char *s;
	size_t n;
};

static bool plain(unsigned char c)
{
	return c > ' ' && c < 0x7f && c != '\\';
}

const char *record_escape(char *buf, size_t len, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, w;
	unsigned char c;

	if (len < 4) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	/* Each step leaves room for "..." and the NUL: o + 4 <= len. */
	for (; *s; s++) {
		c = *s;
		w = plain(c) ? 1 : c == '\\' ? 2 : 4;
		if (o + w + (s[1] ? 4 : 1) > len) {
			strcpy(buf + o, "...");
			return buf;
		}
		if (w == 1) {
			buf[o++] = c;
		} else if (w == 2) {
			buf[o++] = '\\';
			buf[o++] = '\\';
		} else {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		}
	}
	buf[o] = '\0';
	return buf;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;	/* record_escape() writes lowercase only */
}

int record_unescape(char *out, size_t len, const char *in, size_t n)
{
	size_t i, o = 0;
	int hi, lo;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = in[i];
		if (c == '\\' && i + 1 < n && in[i + 1] == '\\') {
			i++;
		} else if (c == '\\' && i + 3 < n && in[i + 1] == 'x') {
			hi = hexval(in[i + 2]);
			lo = hexval(in[i + 3]);
			if (hi < 0 || lo < 0)
				return -1;
			c = hi << 4 | lo;
			/* Only what record_escape() escapes, and never a NUL. */
			if (!c || plain(c) || c == '\\')
				return -1;
			i += 3;
		} else if (!plain(c)) {
			return -1;
		}
		if (o + 1 >= len)
			return -1;
		out[o++] = c;
	}
	if (!len)
		return -1;
	out[o] = '\0';
	return 0;
}

/* Split @len bytes of @line at single spaces into at most @max tokens. */
static int split(const char *line, size_t len, struct token *t, int max)
{
	size_t i, start = 0;
	int n = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (i == start || n == max)
			return -1;	/* empty token, or too many */
		t[n].s = line + start;
		t[n].n = i - start;
		n++;
		start = i + 1;
	}
	return n;
}

static bool is(const struct token *t, const char *word)
{
	return t->n == strlen(word) && !memcmp(t->s, word, t->n);
}

/* A decimal number up to @max, written as "%llu" writes it. */
static int number(const struct token *t, uint64_t max, uint64_t *v)
{
	unsigned int d;
	size_t i;

	if (t->n > 1 && t->s[0] == '0')
		return -1;
	*v = 0;
	for (i = 0; i < t->n; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return -1;
		d = t->s[i] - '0';
		if (d > max || *v > (max - d) / 10)
			return -1;
		*v = *v * 10 + d;
	}
	return 0;
}

static int flag(const struct token *t, bool *b)
{
	uint64_t v;

	if (number(t, 1, &v))
		return -1;
	*b = v;
	return 0;
}

/* A string as record_write() writes it: "-" for an empty one. */
static int string(const struct token *t, char *out, size_t len)
{
	if (is(t, "-")) {
		out[0] = '\0';
		return 0;
	}
	return record_unescape(out, len, t->s, t->n);
}

bool record_path_canonical(const char *p)
{
	const char *c, *end;

	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	for (c = p + 1;; c = end + 1) {
		end = strchrnul(c, '/');
		if (end == c || (end - c == 1 && c[0] == '.') ||
		    (end - c == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!*end)
			return true;
	}
}

static int path(const struct token *t, char *out, size_t len, bool may_be_empty)
{
	if (string(t, out, len))
		return -1;
	return (may_be_empty && !*out) || record_path_canonical(out) ? 0 : -1;
}

static int parse_header(const struct token *t, int n, struct record *r)
{
	uint64_t pid;

	if (n != 3 || !is(&t[0], RECORD_MAGIC) || number(&t[1], 99, &pid) ||
	    pid != RECORD_VERSION || number(&t[2], INT_MAX, &pid) || !pid)
		return -1;
	r->pid = pid;
	return 0;
}

static int parse_session(const struct token *t, int n, struct session_record *s)
{
	uint64_t uid;

	if (n != 9 || string(&t[1], s->id, sizeof(s->id)) ||
	    number(&t[2], UINT32_MAX, &uid) || string(&t[3], s->user, sizeof(s->user)) ||
	    flag(&t[4], &s->idle) || flag(&t[5], &s->locked) || flag(&t[6], &s->active) ||
	    number(&t[7], UINT64_MAX, &s->slack) ||
	    path(&t[8], s->scope, sizeof(s->scope), true))
		return -1;
	s->uid = uid;
	return 0;
}

static int parse_applied(const struct token *t, int n, struct applied *a)
{
	if (n != 8)
		return -1;
	if (is(&t[1], "min"))
		a->field = FIELD_MIN;
	else if (is(&t[1], "max"))
		a->field = FIELD_MAX;
	else
		return -1;
	if (number(&t[2], UINT64_MAX, &a->id) || !a->id ||
	    number(&t[3], UINT64_MAX, &a->prev) || number(&t[4], UINT64_MAX, &a->value) ||
	    number(&t[5], UINT64_MAX, &a->next) ||
	    path(&t[6], a->path, sizeof(a->path), false) ||
	    string(&t[7], a->source, sizeof(a->source)))
		return -1;
	return 0;
}

int record_parse(const char *line, size_t len, struct record *r)
{
	struct token t[MAX_TOKENS];
	int n;

	memset(r, 0, sizeof(*r));
	/* A NUL or a newline inside is no line of ours. */
	if (memchr(line, '\0', len) || memchr(line, '\n', len))
		return -1;
	n = split(line, len, t, MAX_TOKENS);
	if (n < 1)
		return -1;
	if (is(&t[0], RECORD_MAGIC)) {
		r->type = RECORD_HEADER;
		return parse_header(t, n, r);
	}
	if (is(&t[0], "session")) {
		r->type = RECORD_SESSION;
		return parse_session(t, n, &r->s);
	}
	if (is(&t[0], "applied")) {
		r->type = RECORD_APPLIED;
		return parse_applied(t, n, &r->a);
	}
	return -1;
}

/* @s escaped, or "-" if it is empty (or "-"). */
static void put_string(FILE *f, const char *s)
{
	char buf[RECORD_ESCAPED_MAX];

	fprintf(f, " %s", *s ? record_escape(buf, sizeof(buf), s) : "-");
}

int record_write(FILE *f, const struct record *r)
{
	const struct session_record *s = &r->s;
	const struct applied *a = &r->a;

	switch (r->type) {
	case RECORD_HEADER:
		fprintf(f, "%s %d %d", RECORD_MAGIC, RECORD_VERSION, r->pid);
		break;
	case RECORD_SESSION:
		fprintf(f, "session");
		put_string(f, s->id);
		fprintf(f, " %u", s->uid);
		put_string(f, s->user);
		fprintf(f, " %d %d %d %llu", s->idle, s->locked, s->active,
			(unsigned long long)s->slack);
		put_string(f, s->scope);
		break;
	case RECORD_APPLIED:
		fprintf(f, "applied %s %llu %llu %llu %llu", a->field == FIELD_MIN ? "min" : "max",
			(unsigned long long)a->id, (unsigned long long)a->prev,
			(unsigned long long)a->value, (unsigned long long)a->next);
		put_string(f, a->path);
		put_string(f, a->source);
		break;
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}
