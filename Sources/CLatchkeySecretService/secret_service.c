#include "CLatchkeySecretService.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The public ABI of the GLib and libsecret types used (libsecret >= 0.19), declared
 * here instead of included so that building needs no -dev package. */
typedef struct { const char *name; int type; } schema_attribute;
typedef struct {
    const char *name;
    int flags;
    schema_attribute attributes[32];
    int reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} secret_schema;
typedef struct { unsigned int domain; int code; char *message; } g_error;
typedef struct g_list { void *data; struct g_list *next; struct g_list *prev; } g_list;

enum { SCHEMA_NONE = 0, ATTRIBUTE_STRING = 0, SEARCH_ALL = 1 << 1 };

/* The schema the desktop's password manager files the items under: every item
 * carries "xdg:schema" = dev.latchkey.Secret, its namespace and its entry name. */
static const secret_schema schema = {
    "dev.latchkey.Secret", SCHEMA_NONE,
    { { "namespace", ATTRIBUTE_STRING }, { "name", ATTRIBUTE_STRING }, { NULL, 0 } },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL
};

static struct {
    int (*storev_sync)(const secret_schema *, void *, const char *, const char *, const char *, void *, g_error **);
    char *(*lookupv_sync)(const secret_schema *, void *, void *, g_error **);
    int (*clearv_sync)(const secret_schema *, void *, void *, g_error **);
    g_list *(*searchv_sync)(const secret_schema *, void *, int, void *, g_error **);
    void *(*retrievable_get_attributes)(void *);
    void (*password_free)(char *);
    void *(*hash_table_new)(void *, void *);
    int (*hash_table_insert)(void *, void *, void *);
    void *(*hash_table_lookup)(void *, const void *);
    void (*hash_table_unref)(void *);
    void *str_hash;
    void *str_equal;
    void (*list_free_full)(g_list *, void (*)(void *));
    void (*object_unref)(void *);
    void *(*cancellable_new)(void);
    void (*cancellable_cancel)(void *);
    void (*error_free)(g_error *);
    const char *(*quark_to_string)(unsigned int);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[512];

static void load(void) {
    void *handle = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(load_failure, sizeof load_failure, "libsecret-1.so.0 cannot be loaded (install libsecret-1-0): %s",
                 why ? why : "unknown error");
        return;
    }
    /* dlsym on libsecret's handle also finds GLib's and GIO's symbols, which it
     * depends on. */
#define SYMBOL(field, symbol)                                                               \
    do {                                                                                    \
        *(void **)(&api.field) = dlsym(handle, symbol);                                     \
        if (api.field == NULL) {                                                            \
            snprintf(load_failure, sizeof load_failure,                                     \
                     "libsecret-1.so.0 lacks %s (libsecret 0.19 or newer is needed)", symbol); \
            return;                                                                         \
        }                                                                                   \
    } while (0)
    SYMBOL(storev_sync, "secret_password_storev_sync");
    SYMBOL(lookupv_sync, "secret_password_lookupv_sync");
    SYMBOL(clearv_sync, "secret_password_clearv_sync");
    SYMBOL(searchv_sync, "secret_password_searchv_sync");
    SYMBOL(retrievable_get_attributes, "secret_retrievable_get_attributes");
    SYMBOL(password_free, "secret_password_free");
    SYMBOL(hash_table_new, "g_hash_table_new");
    SYMBOL(hash_table_insert, "g_hash_table_insert");
    SYMBOL(hash_table_lookup, "g_hash_table_lookup");
    SYMBOL(hash_table_unref, "g_hash_table_unref");
    SYMBOL(str_hash, "g_str_hash");
    SYMBOL(str_equal, "g_str_equal");
    SYMBOL(list_free_full, "g_list_free_full");
    SYMBOL(object_unref, "g_object_unref");
    SYMBOL(cancellable_new, "g_cancellable_new");
    SYMBOL(cancellable_cancel, "g_cancellable_cancel");
    SYMBOL(error_free, "g_error_free");
    SYMBOL(quark_to_string, "g_quark_to_string");
#undef SYMBOL
}

static char *copy(const char *text) { return strdup(text ? text : ""); }

static void fail(latchkey_ss_error *error, const char *domain, int code, const char *message) {
    if (error == NULL) return;
    error->domain = copy(domain);
    error->code = code;
    error->message = copy(message);
}

static void take(latchkey_ss_error *error, g_error *failure) {
    if (failure == NULL) {
        fail(error, "latchkey", 0, "the Secret Service call failed without saying why");
        return;
    }
    fail(error, api.quark_to_string(failure->domain), failure->code, failure->message);
    api.error_free(failure);
}

void latchkey_ss_error_clear(latchkey_ss_error *error) {
    if (error == NULL) return;
    free(error->domain);
    free(error->message);
    error->domain = NULL;
    error->message = NULL;
    error->code = 0;
}

int latchkey_ss_load(latchkey_ss_error *error) {
    pthread_once(&load_once, load);
    if (load_failure[0] != 0) {
        fail(error, "latchkey", 0, load_failure);
        return -1;
    }
    return 0;
}

void *latchkey_ss_cancellable_new(void) {
    if (latchkey_ss_load(NULL) != 0) return NULL;
    return api.cancellable_new();
}

void latchkey_ss_cancellable_cancel(void *cancellable) {
    if (cancellable != NULL) api.cancellable_cancel(cancellable);
}

void latchkey_ss_cancellable_free(void *cancellable) {
    if (cancellable != NULL) api.object_unref(cancellable);
}

static void *attributes(const char *namespace_, const char *name) {
    void *table = api.hash_table_new(api.str_hash, api.str_equal);
    api.hash_table_insert(table, (void *)"namespace", (void *)namespace_);
    if (name != NULL) api.hash_table_insert(table, (void *)"name", (void *)name);
    return table;
}

/* Whether items of (namespace, name) exist, locked ones included: a lookup or clear
 * that found nothing although they do means the collection is locked (its unlock
 * prompt was dismissed or could not be shown), which must not read as "absent". */
static int exists(const char *namespace_, const char *name, void *cancellable, latchkey_ss_error *error) {
    void *table = attributes(namespace_, name);
    g_error *failure = NULL;
    g_list *items = api.searchv_sync(&schema, table, SEARCH_ALL, cancellable, &failure);
    api.hash_table_unref(table);
    if (failure != NULL) {
        if (items != NULL) api.list_free_full(items, api.object_unref);
        take(error, failure);
        return -1;
    }
    if (items == NULL) return 0;
    api.list_free_full(items, api.object_unref);
    return 1;
}

static int locked(latchkey_ss_error *error) {
    fail(error, "latchkey-locked", 0, "the item exists but its collection is locked");
    return -1;
}

int latchkey_ss_store(const char *namespace_, const char *name, const char *label, const char *secret,
                      void *cancellable, latchkey_ss_error *error) {
    if (latchkey_ss_load(error) != 0) return -1;
    void *table = attributes(namespace_, name);
    g_error *failure = NULL;
    int stored = api.storev_sync(&schema, table, NULL, label, secret, cancellable, &failure);
    api.hash_table_unref(table);
    if (!stored) {
        take(error, failure);
        return -1;
    }
    return 0;
}

int latchkey_ss_lookup(const char *namespace_, const char *name, char **secret, void *cancellable,
                       latchkey_ss_error *error) {
    *secret = NULL;
    if (latchkey_ss_load(error) != 0) return -1;
    void *table = attributes(namespace_, name);
    g_error *failure = NULL;
    char *found = api.lookupv_sync(&schema, table, cancellable, &failure);
    api.hash_table_unref(table);
    if (failure != NULL) {
        if (found != NULL) api.password_free(found);
        take(error, failure);
        return -1;
    }
    if (found == NULL) {
        int present = exists(namespace_, name, cancellable, error);
        return present == 0 ? 0 : present < 0 ? -1 : locked(error);
    }
    *secret = found;
    return 1;
}

void latchkey_ss_secret_free(char *secret) {
    if (secret != NULL) api.password_free(secret);
}

int latchkey_ss_clear(const char *namespace_, const char *name, void *cancellable, latchkey_ss_error *error) {
    if (latchkey_ss_load(error) != 0) return -1;
    void *table = attributes(namespace_, name);
    g_error *failure = NULL;
    int removed = api.clearv_sync(&schema, table, cancellable, &failure);
    api.hash_table_unref(table);
    if (failure != NULL) {
        take(error, failure);
        return -1;
    }
    if (removed) return 1;
    int present = exists(namespace_, name, cancellable, error);
    return present == 0 ? 0 : present < 0 ? -1 : locked(error);
}

int latchkey_ss_names(const char *namespace_, char ***names, size_t *count, void *cancellable,
                      latchkey_ss_error *error) {
    *names = NULL;
    *count = 0;
    if (latchkey_ss_load(error) != 0) return -1;
    void *table = attributes(namespace_, NULL);
    g_error *failure = NULL;
    g_list *items = api.searchv_sync(&schema, table, SEARCH_ALL, cancellable, &failure);
    api.hash_table_unref(table);
    if (failure != NULL) {
        if (items != NULL) api.list_free_full(items, api.object_unref);
        take(error, failure);
        return -1;
    }
    size_t capacity = 0;
    for (g_list *item = items; item != NULL; item = item->next) capacity++;
    char **result = calloc(capacity ? capacity : 1, sizeof(char *));
    if (result == NULL) {
        if (items != NULL) api.list_free_full(items, api.object_unref);
        fail(error, "latchkey", 0, "out of memory listing the entries");
        return -1;
    }
    size_t used = 0;
    for (g_list *item = items; item != NULL; item = item->next) {
        void *found = api.retrievable_get_attributes(item->data);
        if (found == NULL) continue;
        const char *name = api.hash_table_lookup(found, "name");
        if (name != NULL) result[used++] = copy(name);
        api.hash_table_unref(found);
    }
    if (items != NULL) api.list_free_full(items, api.object_unref);
    *names = result;
    *count = used;
    return 0;
}

void latchkey_ss_names_free(char **names, size_t count) {
    if (names == NULL) return;
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
}
