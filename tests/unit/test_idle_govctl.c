// SPDX-License-Identifier: GPL-2.0-or-later
/* Governor control on materialised sysfs trees, and for real where the host allows it. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "idle/govctl.h"

struct tree {
	char *root;
	struct il_sysfs_local fs;
};

static struct tree *tree_new(const char *fixture)
{
	struct tree *t = calloc(1, sizeof(*t));
	struct il_err err = { 0 };

	t->root = tu_tmpdir();
	tu_materialize(tu_fixture(fixture), t->root);
	assert_int_equal(il_sysfs_local_init(&t->fs, t->root, &err), 0);
	t->fs.ops.label = "fixture";
	return t;
}

static void tree_free(struct tree *t)
{
	tu_rmtree(t->root);
	free(t->root);
	free(t);
}

/* The file at path in t's tree must hold exactly want. */
static void assert_file(struct tree *t, const char *path, const char *want)
{
	char full[4096], *f;

	snprintf(full, sizeof(full), "%s%s", t->root, path);
	f = tu_read(full, NULL);
	assert_string_equal(f, want);
	free(f);
}

/* il_govctl_get on t's tree must give want. */
static void assert_gov(struct tree *t, const char *want)
{
	struct il_err err = { 0 };
	char *cur = NULL;

	assert_int_equal(il_govctl_get(&t->fs.ops, &cur, &err), 0);
	assert_string_equal(cur, want);
	free(cur);
}

static void test_govctl__list_get_set(void **state)
{
	struct tree *t = tree_new("labvm-arm64-before.txt");
	struct il_strlist govs = { 0 };
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_govctl_list(&t->fs.ops, &govs, &err), 0);
	assert_int_equal(govs.n, 3);
	assert_gov(t, "menu");
	assert_int_equal(il_govctl_set(&t->fs.ops, "teo", &err), 0);
	assert_file(t, IL_CPUIDLE_DIR "/current_governor", "teo");
	/* not offered by the host: the error lists what is */
	assert_int_equal(il_govctl_set(&t->fs.ops, "teo2", &err), IL_EINVAL);
	assert_string_equal(err.msg, "host 'fixture': governor 'teo2' not in available_governors (ladder menu teo)");
	/* hostile names never reach sysfs */
	assert_int_equal(il_govctl_set(&t->fs.ops, "menu\nteo", &err), IL_EINVAL);
	assert_int_equal(il_govctl_set(&t->fs.ops, "../x", &err), IL_EINVAL);
	assert_file(t, IL_CPUIDLE_DIR "/current_governor", "teo");
	il_strlist_release(&govs);
	tree_free(t);
}

static void test_govctl__read_only_and_absent(void **state)
{
	struct tree *t = tree_new("old-kernel-4.14-before.txt");
	struct il_strlist govs = { 0 };
	struct il_err err = { 0 };

	(void)state;
	assert_gov(t, "menu");
	/* 4.14 without cpuidle_sysfs_switch: no available_governors */
	assert_int_equal(il_govctl_list(&t->fs.ops, &govs, &err), IL_EUNSUPPORTED);
	assert_int_equal(il_govctl_set(&t->fs.ops, "menu", &err), IL_EUNSUPPORTED);
	tree_free(t);

	t = tree_new("x86-vm-no-idle-states.txt");
	tu_write(t->root, IL_CPUIDLE_DIR "/current_governor", "menu");
	assert_int_equal(il_govctl_set(&t->fs.ops, "haltpoll", &err), 0);
	tree_free(t);
}

static void test_govctl__state_disable(void **state)
{
	struct tree *t = tree_new("arm64-biglittle-before.txt");
	struct il_snapshot snap;
	struct il_cpuset set = { 0 };
	struct il_err err = { 0 };
	size_t n;

	(void)state;
	assert_int_equal(il_sysfs_snapshot(&t->fs.ops, &snap, &err), 0);
	/* by name: only the little cluster has cluster-sleep */
	assert_int_equal(il_govctl_state_set_disable(&t->fs.ops, &snap, NULL, "cluster-sleep", true, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_file(t, "/sys/devices/system/cpu/cpu3/cpuidle/state2/disable", "1");
	/* by index on chosen CPUs */
	assert_int_equal(il_cpuset_parse(&set, "4-5", &err), 0);
	assert_int_equal(il_govctl_state_set_disable(&t->fs.ops, &snap, &set, "1", true, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_file(t, "/sys/devices/system/cpu/cpu5/cpuidle/state1/disable", "1");
	/* validated against the host's tables */
	assert_int_equal(il_govctl_state_set_disable(&t->fs.ops, &snap, &set, "cluster-sleep", true, &n, &err), IL_EINVAL);
	assert_string_equal(err.msg, "host 'fixture': cpu4 has no idle state 'cluster-sleep'");
	assert_int_equal(il_govctl_state_set_disable(&t->fs.ops, &snap, NULL, "C6", true, &n, &err), IL_EINVAL);
	assert_string_equal(err.msg, "host 'fixture': no CPU has an idle state 'C6'");
	il_cpuset_release(&set);
	assert_int_equal(il_cpuset_parse(&set, "9", &err), 0);
	assert_int_equal(il_govctl_state_set_disable(&t->fs.ops, &snap, &set, "1", true, &n, &err), IL_EINVAL);
	assert_string_equal(err.msg, "host 'fixture': cpu9 has no idle states");
	il_cpuset_release(&set);
	il_snapshot_release(&snap);
	tree_free(t);
}

static void test_govctl__save_restore(void **state)
{
	struct tree *t = tree_new("arm64-biglittle-before.txt");
	struct il_idle_saved saved;
	struct il_snapshot snap, after;
	struct il_err err = { 0 };
	size_t n;

	(void)state;
	tu_write(t->root, "/sys/devices/system/cpu/cpu1/cpuidle/state1/disable", "1"); /* the owner's own choice */
	assert_int_equal(il_govctl_save(&t->fs.ops, &saved, &err), 0);
	assert_string_equal(saved.governor, "teo");
	assert_int_equal(saved.n, 4 * 3 + 2 * 2);
	assert_int_equal(il_govctl_set(&t->fs.ops, "ladder", &err), 0);
	assert_int_equal(il_sysfs_snapshot(&t->fs.ops, &snap, &err), 0);
	assert_int_equal(il_govctl_state_set_disable(&t->fs.ops, &snap, NULL, "0", true, &n, &err), 0);
	assert_int_equal(il_govctl_state_set_disable(&t->fs.ops, &snap, NULL, "cpu-sleep", false, &n, &err), 0);
	il_snapshot_release(&snap);
	assert_int_equal(il_govctl_restore(&t->fs.ops, &saved, &err), 0);
	assert_int_equal(il_sysfs_snapshot(&t->fs.ops, &after, &err), 0);
	assert_string_equal(after.governor, "teo");
	for (size_t i = 0; i < after.ncpus; i++)
		for (size_t k = 0; k < after.cpus[i].nstates; k++)
			assert_int_equal(after.cpus[i].states[k].info[IL_I_DISABLE].v,
					 after.cpus[i].cpu == 1 && k == 1 ? 1 : 0);
	il_snapshot_release(&after);
	/* idempotent */
	assert_int_equal(il_govctl_restore(&t->fs.ops, &saved, &err), 0);
	assert_file(t, IL_CPUIDLE_DIR "/current_governor", "teo");
	il_govctl_saved_release(&saved);
	tree_free(t);
}

/* On a host whose cpuidle governor is writable (CI runs as root on a KVM guest), switch for real. */
static void test_govctl__real_host_switch_and_restore(void **state)
{
	struct il_sysfs_local fs;
	struct il_idle_saved saved;
	struct il_strlist govs = { 0 };
	struct il_err err = { 0 };
	const char *other = NULL;

	(void)state;
	assert_int_equal(il_sysfs_local_init(&fs, "/", &err), 0);
	if (access(IL_CPUIDLE_DIR "/current_governor", W_OK))
		TU_SKIP("/sys/devices/system/cpu/cpuidle/current_governor is not writable here (not root, or no cpuidle)");
	assert_int_equal(il_govctl_list(&fs.ops, &govs, &err), 0);
	assert_int_equal(il_govctl_save(&fs.ops, &saved, &err), 0);
	for (size_t i = 0; i < govs.n; i++)
		if (strcmp(govs.v[i], saved.governor))
			other = govs.v[i];
	if (!other) {
		il_govctl_saved_release(&saved);
		il_strlist_release(&govs);
		TU_SKIP("only one cpuidle governor available on this host");
	}
	tu_gov_round_trip(&fs.ops, &fs.ops, &saved, other);
	il_govctl_saved_release(&saved);
	il_strlist_release(&govs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_govctl__list_get_set),
		cmocka_unit_test(test_govctl__read_only_and_absent),
		cmocka_unit_test(test_govctl__state_disable),
		cmocka_unit_test(test_govctl__save_restore),
		cmocka_unit_test(test_govctl__real_host_switch_and_restore),
	};

	return cmocka_run_group_tests_name("idle_govctl", tests, NULL, NULL);
}
