/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Functions idlelab code must not call, refused by the compiler as git's
 * banned.h does: the Makefile force-includes this header into every
 * translation unit (-include), so a call fails to compile with a name that
 * says what to use instead. The system headers that declare them come first,
 * so their own declarations are not rewritten.
 *
 * Replacements (src/util): il_str_lcpy for strcpy/strncpy, il_buf_adds or
 * il_buf_printf for strcat/strncat/sprintf/vsprintf, snprintf/vsnprintf into a
 * sized buffer, strtok_r or il_strlist_split for strtok, fgets for gets,
 * gmtime_r/localtime_r for gmtime/localtime/ctime/asctime, il_json_dumps
 * (util/jsonfile.h) for json_dumps, whose text can miss a key when memory
 * runs out (jansson 2.14).
 */
#ifndef IL_UTIL_BANNED_H
#define IL_UTIL_BANNED_H
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#define IL_BANNED(func) sorry_##func##_is_banned_in_idlelab_see_src_util_banned_h

#undef strcpy
#define strcpy(x, y) IL_BANNED(strcpy)
#undef strncpy
#define strncpy(x, y, n) IL_BANNED(strncpy)
#undef strcat
#define strcat(x, y) IL_BANNED(strcat)
#undef strncat
#define strncat(x, y, n) IL_BANNED(strncat)
#undef strtok
#define strtok(x, y) IL_BANNED(strtok)
#undef sprintf
#define sprintf(...) IL_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) IL_BANNED(vsprintf)
#undef json_dumps
#define json_dumps(j, f) IL_BANNED(json_dumps)
#undef gets
#define gets(x) IL_BANNED(gets)
#undef gmtime
#define gmtime(t) IL_BANNED(gmtime)
#undef localtime
#define localtime(t) IL_BANNED(localtime)
#undef ctime
#define ctime(t) IL_BANNED(ctime)
#undef asctime
#define asctime(t) IL_BANNED(asctime)

#endif
