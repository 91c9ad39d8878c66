#include <histedit.h>
#include <locale.h>
#include <langinfo.h>

/* el_wset, el_wget and history_w are variadic, which Swift cannot call: one fixed-argument
 * wrapper per operation keep uses, each passing exactly the arguments that operation takes. */

/* An editor on the C library's standard streams (globals Swift 6 will not touch). */
static inline EditLine *keep_el_init(const char *program) {
    return el_init(program, stdin, stdout, stderr);
}

typedef wchar_t *(*keep_el_prompt_t)(EditLine *);
typedef unsigned char (*keep_el_command_t)(EditLine *, int);

static inline int keep_el_set_string(EditLine *el, int op, const wchar_t *value) {
    return el_wset(el, op, value);
}
static inline int keep_el_set_int(EditLine *el, int op, int value) {
    return el_wset(el, op, value);
}
static inline int keep_el_set_prompt(EditLine *el, keep_el_prompt_t prompt) {
    return el_wset(el, EL_PROMPT, prompt);
}
static inline int keep_el_set_getc(EditLine *el, el_rfunc_t getc) {
    return el_wset(el, EL_GETCFN, getc);
}
static inline int keep_el_set_client_data(EditLine *el, void *data) {
    return el_wset(el, EL_CLIENTDATA, data);
}
static inline int keep_el_get_client_data(EditLine *el, void **data) {
    return el_wget(el, EL_CLIENTDATA, data);
}
static inline int keep_el_add_function(EditLine *el, const wchar_t *name, const wchar_t *help, keep_el_command_t fn) {
    return el_wset(el, EL_ADDFN, name, help, fn);
}
static inline int keep_el_bind(EditLine *el, const wchar_t *keys, const wchar_t *command) {
    return el_wset(el, EL_BIND, keys, command, (const wchar_t *)0);
}
/* setty in one of libedit's mode sets (-d editing, -x execute, -q quote): "+isig" or "-isig". */
static inline int keep_el_setty(EditLine *el, const wchar_t *set, const wchar_t *mode) {
    return el_wset(el, EL_SETTY, set, mode, (const wchar_t *)0);
}
static inline int keep_el_set_history(EditLine *el, HistoryW *history) {
    return el_wset(el, EL_HIST, history_w, history);
}
static inline int keep_history_set_size(HistoryW *history, HistEventW *event, int size) {
    return history_w(history, event, H_SETSIZE, size);
}
static inline int keep_history_set_unique(HistoryW *history, HistEventW *event, int unique) {
    return history_w(history, event, H_SETUNIQUE, unique);
}
static inline int keep_history_enter(HistoryW *history, HistEventW *event, const wchar_t *line) {
    return history_w(history, event, H_ENTER, line);
}
