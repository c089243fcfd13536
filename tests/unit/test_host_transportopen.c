// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Opening a host's transport (host/transportopen.c): the kind table picks
 * the implementation (local here; ssh and command have their own tests), a
 * LAVA host has none and says why, and a kind out of range is refused.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "host/hostkind.h"
#include "host/host.h"
#include "host/transport.h"

static void test_transportopen__by_kind(void **state)
{
	char *argv[] = { "true", NULL };
	struct il_host_cfg h;
	struct il_exec_result res;
	struct il_err err = { 0 };
	struct il_transport *t = (struct il_transport *)&h;

	(void)state;
	assert_int_equal(il_host_load(&h, NULL, "local", &err), 0);
	assert_int_equal(il_transport_open(&t, &h, &err), 0);
	assert_non_null(t);
	assert_string_equal(t->auth, "local");
	assert_ptr_equal(t->cfg, &h);
	assert_int_equal(il_transport_exec(t, argv, NULL, &res, &err), 0);
	assert_int_equal(res.exit_code, 0);
	il_transport_result_release(&res);
	il_transport_free(t);
	il_transport_free(NULL);
	/* a LAVA host is reached through jobs: its open says so, *out NULL */
	h.kind = IL_HOST_LAVA;
	t = (struct il_transport *)&h;
	assert_int_equal(il_transport_open(&t, &h, &err), IL_EUNSUPPORTED);
	assert_null(t);
	assert_string_equal(err.msg, "host 'local' is a LAVA host: it is reached through LAVA jobs, not commands");
	assert_false(il_host_kinds[IL_HOST_LAVA].commands);
	/* a kind no table row has */
	h.kind = IL_HOST_NKINDS;
	t = (struct il_transport *)&h;
	assert_int_equal(il_transport_open(&t, &h, &err), IL_EINVAL);
	assert_null(t);
	assert_string_equal(err.msg, "host 'local': unknown kind of transport");
	h.kind = IL_HOST_LOCAL;
	il_host_release(&h);
}

/* Every kind has its row: a name, an open, where it is. */
static void test_transportopen__every_kind_has_a_row(void **state)
{
	(void)state;
	for (int k = 0; k < IL_HOST_NKINDS; k++) {
		assert_non_null(il_host_kinds[k].name);
		assert_non_null(il_host_kinds[k].open);
		assert_non_null(il_host_kinds[k].where);
		assert_string_equal(il_host_kind_name((enum il_host_kind)k), il_host_kinds[k].name);
	}
	assert_string_equal(il_host_kind_name(IL_HOST_NKINDS), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transportopen__by_kind),
		cmocka_unit_test(test_transportopen__every_kind_has_a_row),
	};

	return cmocka_run_group_tests_name("host_transportopen", tests, NULL, NULL);
}
