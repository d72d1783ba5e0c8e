/* The public face of the settings (include/agglo/agglo.h): statuses and the thread's message. */
#include "config/config.h"
#include "core/error.h"
#include "core/model.h"
#include "core/text.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NEED(c)                                                                        \
  do {                                                                                 \
    if (!(c)) return agglo_error(AGGLO_ERROR_USAGE, "%s: the settings handle is NULL", __func__); \
  } while (0)

agglo_config *agglo_config_new(void) {
  agglo_config *c = malloc(sizeof *c);
  if (c) agglo_config_defaults(c);
  else agglo_error(AGGLO_ERROR_MEMORY, "agglo_config_new: out of memory");
  return c;
}

agglo_config *agglo_config_copy(const agglo_config *c) {
  if (!c) {
    agglo_error(AGGLO_ERROR_USAGE, "agglo_config_copy: the settings handle is NULL");
    return NULL;
  }
  agglo_config *d = agglo_config_new();
  if (d) *d = *c;
  return d;
}

void agglo_config_destroy(agglo_config *c) { free(c); }

/* Internal (err, errlen) calls report into the thread's message. */
static agglo_status input(int rc) { return rc == 0 ? AGGLO_OK : AGGLO_ERROR_INPUT; }

agglo_status agglo_config_load(agglo_config *c, const char *path) {
  NEED(c);
  if (!path) return agglo_error(AGGLO_ERROR_INPUT, "agglo_config_load: the path is NULL");
  return input(agglo_config_read_file(c, path, agglo_error_buffer(), AGGLO_ERROR_LEN));
}

agglo_status agglo_config_load_string(agglo_config *c, const char *text, const char *name) {
  NEED(c);
  if (!text) return agglo_error(AGGLO_ERROR_INPUT, "agglo_config_load_string: the text is NULL");
  return input(agglo_config_read_string(c, text, name ? name : "(string)", agglo_error_buffer(),
                                        AGGLO_ERROR_LEN));
}

agglo_status agglo_config_load_default(agglo_config *c) {
  return agglo_config_load_string(c, agglo_default_scenario, "(built-in default)");
}

agglo_status agglo_config_set(agglo_config *c, const char *key, const char *value) {
  NEED(c);
  if (!key || !value) return agglo_error(AGGLO_ERROR_INPUT, "agglo_config_set: NULL key or value");
  return input(agglo_config_set_value(c, key, value, agglo_error_buffer(), AGGLO_ERROR_LEN));
}

agglo_status agglo_config_assign(agglo_config *c, const char *assignment) {
  NEED(c);
  if (!assignment) return agglo_error(AGGLO_ERROR_INPUT, "agglo_config_assign: NULL assignment");
  return input(agglo_config_read_assignment(c, assignment, agglo_error_buffer(), AGGLO_ERROR_LEN));
}

agglo_status agglo_config_get(const agglo_config *c, const char *key, char *buf, size_t len) {
  NEED(c);
  if (!key || !buf || len == 0)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_config_get: NULL key or empty buffer");
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  if (!f) return agglo_error(AGGLO_ERROR_MEMORY, "agglo_config_get: out of memory");
  int rc = agglo_config_get_value(c, key, f, agglo_error_buffer(), AGGLO_ERROR_LEN);
  int lost = ferror(f) != 0; /* (the stream could not grow: the value would be cut short) */
  if (fclose(f) != 0 || lost) {
    free(text);
    return agglo_error(AGGLO_ERROR_MEMORY, "agglo_config_get: out of memory");
  }
  agglo_status st = input(rc);
  if (st == AGGLO_OK && n >= len)
    st = agglo_error(AGGLO_ERROR_INPUT, "agglo_config_get: %s needs a buffer of %zu bytes", key, n + 1);
  else if (st == AGGLO_OK) memcpy(buf, text, n + 1);
  free(text);
  return st;
}

agglo_status agglo_config_check(const agglo_config *c) {
  NEED(c);
  return input(agglo_config_validate(c, agglo_error_buffer(), AGGLO_ERROR_LEN));
}

agglo_status agglo_config_save(const agglo_config *c, const char *path) {
  NEED(c);
  FILE *f = path ? fopen(path, "w") : NULL;
  if (!f) return agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", path ? path : "(NULL)", strerror(errno));
  int rc = agglo_config_write(c, f);
  if (fclose(f) != 0 || rc != 0) return agglo_error(AGGLO_ERROR_IO, "%s: write failed", path);
  return AGGLO_OK;
}

/* The settings (scenario), the key table (keys, markdown: docs/config.md's) or the model's
   account of them (summary) as text for the caller. */
enum { TEXT_SCENARIO, TEXT_KEYS, TEXT_KEYS_MARKDOWN, TEXT_SUMMARY };
static agglo_status as_text(const char *fn, const agglo_config *c, int what, char **text) {
  if (!text) return agglo_error(AGGLO_ERROR_USAGE, "%s: the text pointer is NULL", fn);
  agglo_text t;
  agglo_status st = agglo_text_open(&t, fn);
  if (st != AGGLO_OK) return st;
  if (what == TEXT_SCENARIO && agglo_config_write(c, t.f) != 0)
    st = agglo_error(AGGLO_ERROR_IO, "%s: write failed", fn);
  if (what == TEXT_KEYS || what == TEXT_KEYS_MARKDOWN)
    agglo_config_print_keys(t.f, what == TEXT_KEYS_MARKDOWN);
  if (what == TEXT_SUMMARY && c->model->describe) c->model->describe(c, t.f);
  return agglo_text_close(&t, st, text);
}

agglo_status agglo_config_text(const agglo_config *c, char **text) {
  NEED(c);
  return as_text(__func__, c, TEXT_SCENARIO, text);
}

agglo_status agglo_config_keys_text(int markdown, char **text) {
  return as_text(__func__, NULL, markdown ? TEXT_KEYS_MARKDOWN : TEXT_KEYS, text);
}

agglo_status agglo_config_summary_text(const agglo_config *c, char **text) {
  NEED(c);
  return as_text(__func__, c, TEXT_SUMMARY, text);
}
