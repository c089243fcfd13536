/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpuidle governor control on any host: list, get, set (validated against
 * available_governors, read back), per-CPU per-state `disable`, and the
 * borrow/return record: save the host's settings before touching them,
 * put them back afterwards.
 */
#ifndef IL_IDLE_GOVCTL_H
#define IL_IDLE_GOVCTL_H

#include <stdbool.h>

#include <jansson.h>
#include "idle/sysfs.h"

#define IL_CPUIDLE_DIR "/sys/devices/system/cpu/cpuidle"

/* available_governors into out (appended). IL_EUNSUPPORTED without cpuidle. */
int il_govctl_list(struct il_sysfs *fs, struct il_strlist *out, struct il_err *err);

/* The current governor (current_governor, else current_governor_ro); caller frees *out. */
int il_govctl_get(struct il_sysfs *fs, char **out, struct il_err *err);

/*
 * Switch to name. It must be listed in available_governors (the error lists
 * them); the value is read back and must match. IL_EUNSUPPORTED when the
 * kernel has no writable current_governor.
 */
int il_govctl_set(struct il_sysfs *fs, const char *name, struct il_err *err);

/*
 * Set `disable` of one state on the CPUs in cpus (NULL: every CPU with idle
 * states). state is an index ("2") or a state name ("C6"), resolved per CPU
 * against snap; CPUs must exist in snap. Returns how many CPUs were changed in *nchanged.
 */
int il_govctl_state_set_disable(struct il_sysfs *fs, const struct il_snapshot *snap, const struct il_cpuset *cpus,
			 const char *state, bool disable, size_t *nchanged, struct il_err *err);

struct il_idle_setting {
	int cpu;
	int state;
	uint64_t disable;
};

struct il_freq_setting {
	int cpu;
	char *governor;
};

/* The host's settings before idlelab touched them. */
struct il_idle_saved {
	char *governor;          /* NULL: nothing to restore (no cpuidle or not writable) */
	size_t n;
	struct il_idle_setting *v;
	size_t nfreq;            /* cpufreq scaling governors, recorded by il_govctl_cpufreq_save */
	struct il_freq_setting *freq;
};

/* Record governor and every state's disable value. */
int il_govctl_save(struct il_sysfs *fs, struct il_idle_saved *out, struct il_err *err);

/*
 * Put back what il_govctl_save recorded: every value that differs now is
 * written. All writes are attempted even if one fails; the first error is
 * returned. Safe to call twice.
 */
int il_govctl_restore(struct il_sysfs *fs, const struct il_idle_saved *saved, struct il_err *err);
void il_govctl_saved_release(struct il_idle_saved *s);

/*
 * Record every CPU's cpufreq scaling_governor (CPUs of snap) into saved, so
 * il_govctl_restore puts them back too. IL_EUNSUPPORTED (naming the CPU) when
 * a CPU has no cpufreq.
 */
int il_govctl_cpufreq_save(struct il_sysfs *fs, const struct il_snapshot *snap, struct il_idle_saved *saved,
		    struct il_err *err);
/* Set scaling_governor on the CPUs recorded in saved, validated against scaling_available_governors. */
int il_govctl_cpufreq_set(struct il_sysfs *fs, const struct il_idle_saved *saved, const char *gov, struct il_err *err);

/*
 * The record as JSON (NULL when memory ran out; the caller decrefs) and back
 * (kept in a run directory, so a crashed run can still restore).
 */
json_t *il_govctl_saved_to_json(const struct il_idle_saved *s);
int il_govctl_saved_from_json(struct il_idle_saved *out, const json_t *j, const char *label, struct il_err *err);

#endif
