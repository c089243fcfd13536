// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What differs per kind of host (host/hostkind.c): `host show --json` and
 * `host list`'s where, for a host of each kind with everything its file can
 * say (a boot section and a power-cycle hook, a command transport's
 * templates, a LAVA section), and the JSON whole or not at all when memory
 * runs out at any of its allocations.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/hostkind.h"
#include "host/host.h"
#include "util/jsonfile.h"

static const char *const hosts[][2] = {
	{ "ssh", "{\"address\": \"10.0.0.7\", \"port\": 2222, \"user\": \"root\", \"identity\": \"/k\", \"sudo\": true, "
		 "\"cpus\": \"0-3\", \"boot\": {\"method\": \"kexec\", \"cmdline\": \"quiet\"}, "
		 "\"power_cycle\": {\"url\": \"http://admin:pw@127.0.0.1:9/outlet?token=t\"}}" },
	{ "command", "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"], "
		     "\"pull\": [\"cp\", \"{src}\", \"{dst}\"]}, \"boot\": {\"method\": \"command\", \"argv\": [\"reboot\"], "
		     "\"back_argv\": [\"reboot\"]}, \"power_cycle\": {\"argv\": [\"pdu\", \"cycle\"]}}" },
	{ "lava", "{\"lava\": {\"url\": \"https://lava.example/\", \"token_file\": \"/t\", \"device_type\": \"qemu\", "
		  "\"artifact_dir\": \"/srv\", \"artifact_url\": \"file:///srv\", "
		  "\"images\": {\"kernel\": \"/k\"}}}" },
};

static void load(struct il_host_cfg *h, const char *json)
{
	json_error_t je;
	json_t *j = json_loads(json, 0, &je);
	struct il_err err = { 0 };

	if (!j)
		fail_msg("bad test JSON '%s': %s", json, je.text);
	if (il_host_from_json(h, j, "h1", "hosts/h1.json", NULL, &err))
		fail_msg("'%s': %s", json, err.msg);
	json_decref(j);
}

static void test_hostkind__show_and_where(void **state)
{
	static const char *const where[] = { "root@10.0.0.7:2222", "command: sh -c {cmd}",
					     "LAVA https://lava.example device type qemu" };
	struct il_buf b = IL_BUF_INIT;
	struct il_host_cfg h;
	json_t *j;

	(void)state;
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		load(&h, hosts[i][1]);
		assert_string_equal(il_host_kind_name(h.kind), hosts[i][0]);
		il_buf_reset(&b);
		assert_int_equal(il_host_where(&h, &b), 0);
		assert_string_equal(il_buf_str(&b), where[i]);
		assert_non_null(j = il_host_to_json(&h));
		assert_string_equal(json_string_value(json_object_get(j, "name")), "h1");
		assert_string_equal(json_string_value(json_object_get(j, "transport")), hosts[i][0]);
		assert_non_null(json_object_get(j, "boot"));
		/* another machine: its sudo and timeouts */
		assert_true(json_is_boolean(json_object_get(j, "sudo")));
		json_decref(j);
		il_host_release(&h);
	}
	/* the ssh host's own fields; the power-cycle URL without its credentials */
	load(&h, hosts[0][1]);
	j = il_host_to_json(&h);
	assert_string_equal(json_string_value(json_object_get(j, "address")), "10.0.0.7");
	assert_int_equal(json_integer_value(json_object_get(j, "port")), 2222);
	assert_string_equal(json_string_value(json_object_get(j, "host_key_policy")), "strict");
	{
		char *txt = il_json_dumps(j, 0);

		assert_null(strstr(txt, "pw@"));
		assert_null(strstr(txt, "token=t"));
		free(txt);
	}
	json_decref(j);
	il_host_release(&h);
	/* local: this machine, none of another machine's fields */
	{
		struct il_err err = { 0 };

		assert_int_equal(il_host_load(&h, NULL, "local", &err), 0);
		j = il_host_to_json(&h);
		assert_string_equal(json_string_value(json_object_get(j, "transport")), "local");
		assert_null(json_object_get(j, "sudo"));
		assert_null(json_object_get(j, "commands"));
		json_decref(j);
		il_buf_reset(&b);
		assert_int_equal(il_host_where(&h, &b), 0);
		assert_string_equal(il_buf_str(&b), "this machine (no SSH)");
		il_host_release(&h);
	}
	il_buf_release(&b);
}

/*
 * A host's JSON is whole or NULL, whichever of its allocations fails: never
 * a key silently left out (the command host's templates too: their arrays
 * come from il_jfields_strlist_json, NULL when an element could not be added).
 */
static void test_hostkind__json_whole_or_none(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		struct il_host_cfg h;
		json_t *whole;
		long n = 0;

		load(&h, hosts[i][1]);
		assert_non_null(whole = il_host_to_json(&h));
		for (bool hit = true; hit; n += tu_oom_stride()) {
			json_t *j;

			tu_json_oom(n);
			j = il_host_to_json(&h);
			hit = tu_json_oom_end();
			if (!j)
				assert_true(hit);
			else if (!json_equal(j, whole))
				fail_msg("%s host, allocation %ld failed: a host's JSON with a part missing", hosts[i][0], n);
			json_decref(j);
		}
		assert_true(n > 10);
		json_decref(whole);
		il_host_release(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostkind__show_and_where),
		cmocka_unit_test(test_hostkind__json_whole_or_none),
	};

	return cmocka_run_group_tests_name("host_hostkind", tests, NULL, NULL);
}
