#ifndef CLATCHKEY_SECRET_SERVICE_H
#define CLATCHKEY_SECRET_SERVICE_H

/*
 * The Secret Service (GNOME Keyring, KWallet) through libsecret, loaded at run time.
 *
 * Why C, and why dlopen: a build of the package must keep needing only libssl-dev and
 * libkeyutils-dev, so nothing here includes a libsecret or GLib header or links
 * against them. The few GLib/libsecret types used are declared in secret_service.c
 * with the layout of their public ABI, and libsecret-1.so.0 is opened on first use.
 * Where it is missing the calls report that, and the Swift side calls the store
 * unavailable. The GLib plumbing (hash tables of attributes, lists, GError) stays in
 * C so the Swift side sees plain strings.
 */

#include <stddef.h>

/// A failure: GLib's error domain name and code and its message (all heap copies,
/// freed by latchkey_ss_error_clear). Messages come from D-Bus and never hold a secret.
typedef struct {
    char *domain;
    int code;
    char *message;
} latchkey_ss_error;

/// Frees the strings of `error` and zeroes it.
void latchkey_ss_error_clear(latchkey_ss_error *error);

/// Opens libsecret once per process; 0 on success, else -1 with `error->message`.
int latchkey_ss_load(latchkey_ss_error *error);

/// A GCancellable (opaque); NULL when libsecret is not loaded.
void *latchkey_ss_cancellable_new(void);
/// Cancels a pending call that uses `cancellable`; safe from any thread.
void latchkey_ss_cancellable_cancel(void *cancellable);
/// Releases `cancellable`.
void latchkey_ss_cancellable_free(void *cancellable);

/// Stores `secret` (NUL-terminated text) under (namespace, name) in the default
/// collection with `label`. 0 on success, -1 with `error`.
int latchkey_ss_store(const char *namespace_, const char *name, const char *label, const char *secret,
                      void *cancellable, latchkey_ss_error *error);

/// Looks up (namespace, name): 1 and `*secret` (free with latchkey_ss_secret_free)
/// when found, 0 when absent, -1 with `error`.
int latchkey_ss_lookup(const char *namespace_, const char *name, char **secret,
                       void *cancellable, latchkey_ss_error *error);

/// Zeroes and frees a secret returned by latchkey_ss_lookup.
void latchkey_ss_secret_free(char *secret);

/// Removes the items of (namespace, name), or of the whole namespace when `name` is
/// NULL: 1 when something was removed, 0 when nothing was there, -1 with `error`.
int latchkey_ss_clear(const char *namespace_, const char *name, void *cancellable, latchkey_ss_error *error);

/// The entry names of `namespace_` (locked items included: attributes are not
/// secret). 0 with `*names` (an array of `*count` heap strings, free with
/// latchkey_ss_names_free), or -1 with `error`.
int latchkey_ss_names(const char *namespace_, char ***names, size_t *count,
                      void *cancellable, latchkey_ss_error *error);

/// Frees what latchkey_ss_names returned.
void latchkey_ss_names_free(char **names, size_t count);

#endif
