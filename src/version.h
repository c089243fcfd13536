/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idlelab's version, recorded in every output that carries provenance. */
#ifndef IL_VERSION_H
#define IL_VERSION_H
#define IL_VERSION "0.1.0"
#endif
