#ifndef LATCHKEY_CKEYUTILS_SHIM_H
#define LATCHKEY_CKEYUTILS_SHIM_H
#include <keyutils.h>
#endif
