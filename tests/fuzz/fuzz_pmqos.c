// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the PM QoS dump parser (`make fuzz`): any input must
 * parse or fail with IL_EPARSE/IL_ENOMEM, and what parses must render as an
 * exposition that is UTF-8 and keeps every holder on one line (names may
 * hold any byte: quotes, backslashes and newlines are escaped).
 */
#include <string.h>

#include "fuzz.h"
#include "idle/pmqos.h"
#include "report/promtext.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char info[] = "idlelab_pmqos_cpu_dma_latency_holder_info{";
	struct il_snapshot none = { 0 };
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct il_pmqos q;
	size_t lines = 0;
	int r = il_pmqos_parse(&q, (const char *)data, size, "fuzz", &err);

	if (r) {
		if (r != IL_EPARSE && r != IL_ENOMEM)
			abort();
		return 0;
	}
	if (il_promtext_render(&out, &none, &q, NULL, &err))
		abort();
	for (const unsigned char *p = (const unsigned char *)il_buf_str(&out); *p; p += il_utf8_len(p))
		if (!il_utf8_len(p))
			abort();
	/* a name's newlines are escaped: each holder is one line, starting with the metric */
	for (const char *p = il_buf_str(&out); *p;) {
		const char *nl = strchr(p, '\n');

		if (!nl)
			abort();
		if (!strncmp(p, info, sizeof(info) - 1)) {
			if (nl - p < 4 || memcmp(nl - 3, "} 1", 3))
				abort();
			lines++;
		}
		p = nl + 1;
	}
	if (lines != q.nholders)
		abort();
	il_buf_release(&out);
	il_pmqos_release(&q);
	return 0;
}
