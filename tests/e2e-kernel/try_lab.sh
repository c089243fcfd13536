#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab try` as a linux-pm tester runs it on the lab host (issue #39): seed
# 003's v2 as Rafael J. Wysocki's tools send it (tests/fixtures/series/
# seed003.mbox: plain diffs, an in-body From), no --repo: the lab's own tree,
# Debian's linux-source-6.12. The whole series stops before anything is built,
# naming 2/2 and teo.c (rewritten after 6.12); --patches 1 builds 1/2 (its
# menu.c hunk 6 lines off, as git am applies it) with the lab's configuration,
# boots it, measures menu and teo each against itself on the base (and the
# base's A/A copy), and writes reply.eml: To the author, Cc the list and the
# thread's Cc, In-Reply-To the cover letter, and a Kernels line with the
# releases measured and where the tree came from.
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
kernel_lab_needs qemu-system-aarch64 dtc dropbearkey aarch64-linux-gnu-gcc git python3
lab_fresh tr
trap '"$IDLELAB" lab down --name tr >/dev/null 2>&1; rm -rf "$E2E_TMP"' EXIT
M=$SRC/tests/fixtures/series/seed003.mbox
t0=$(date +%s)
expect "the whole series: 2/2 named with teo.c before anything is built" 1 \
	"patch 2/2 'cpuidle: governors: teo: Rearrange stopped tick handling' does not apply on base [0-9a-f]{12} \\($KVER\\.[0-9]+\\) \\+ 1/2: drivers/cpuidle/governors/teo.c" \
	"$IDLELAB" try "$M" --host labvm-tr --out "$E2E_TMP/whole" -q
[ ! -e "$E2E_TMP/whole/journal.jsonl" ] && [ $(($(date +%s) - t0)) -lt 20 ] &&
	ok "... in seconds, nothing measured" || bad "... in seconds, nothing measured" "$(ls "$E2E_TMP/whole" 2>&1)"
t0=$(date +%s)
expect "try --patches 1: built, booted, measured, answered" 0 "" \
	"$IDLELAB" try "$M" --host labvm-tr --patches 1 --workload sleeper --iterations 3 \
	--as "Lab Tester <tester@example.org>" --out "$E2E_TMP/run" -q
echo "  (try --patches 1: $(($(date +%s) - t0)) s)"
python3 - "$E2E_TMP/run" "$KVER" <<'PY' && ok "the run: menu and teo on base, patch-1 and base-aa, patch-1 booted on the lab's $KVER" ||
import json, os, sys
recs = [json.loads(l) for l in open(os.path.join(sys.argv[1], "journal.jsonl"))]
rs = [r for r in recs if r["type"] == "run-start"][0]
labels = sorted(v["label"] for v in rs["variants"])
assert labels == sorted(g + "@" + k for g in ("menu", "teo") for k in ("base", "patch-1", "base-aa")), labels
assert [k["name"] for k in rs["kernels"]] == ["base", "patch-1", "base-aa"], rs["kernels"]
assert rs["kernels"][0]["origin"].startswith("Debian linux-source-" + sys.argv[2]), rs["kernels"][0]
boots = [r for r in recs if r["type"] == "boot" and r.get("ok") and r.get("kernel") == "patch-1"]
assert boots and boots[0]["release"].startswith(sys.argv[2] + "."), boots
ok = [r for r in recs if r["type"] == "sample" and r.get("final") and r["status"] == "ok" and not r.get("warmup")]
assert len(ok) == 18, len(ok)
PY
	bad "the run: menu and teo on base, patch-1 and base-aa" "$(grep -E '"type":"(boot|run-start)"' "$E2E_TMP/run/journal.jsonl" | cut -c1-600)"
python3 - "$E2E_TMP/run/reply.eml" "$KVER" <<'PY' > "$E2E_TMP/check.txt" 2>&1 &&
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
body = m.get_body(("plain",)).get_content()
flat = " ".join(body.split())
cc = [a.addr_spec for a in m["Cc"].addresses]
checks = [
    ("To the author", [a.addr_spec for a in m["To"].addresses] == ["rafael@kernel.org"]),
    ("Cc the list and the thread's Cc", cc[:2] == ["linux-pm@vger.kernel.org", "linux-kernel@vger.kernel.org"] and
     "christian.loehle@arm.com" in cc and "tester@example.org" not in cc and "rafael@kernel.org" not in cc),
    ("In-Reply-To the cover", m["In-Reply-To"] == "<5959849.DvuYhMxLoT@rafael.j.wysocki>"),
    ("Re: the cover's subject", m["Subject"] == "Re: [PATCH v2 0/2] cpuidle: governor: Modify the handling of stopped tick"),
    ("menu against menu on the base", "menu, each kernel against menu on the base: menu@patch-1, menu@base-aa (A/A) against menu@base" in flat),
    ("teo against teo on the base", "teo, each kernel against teo on the base: teo@patch-1, teo@base-aa (A/A) against teo@base" in flat),
    ("never across governors", "teo@base better" not in flat and "teo@base worse" not in flat),
    ("the Kernels line: release and origin", "Kernels: base (" + sys.argv[2] + "." in flat and
     "from Debian linux-source-" + sys.argv[2] in flat and "cpuidle: governors: menu: Refine stopped tick handling" in flat),
]
bad = [n for n, c in checks if not c]
print("bad:", bad, m["To"], m["Cc"], m["In-Reply-To"], m["Subject"], "\n" + body) if bad else print("all good")
sys.exit(1 if bad else 0)
PY
	ok "reply.eml: To the author, Cc the list, per governor against itself on the base, the Kernels measured" ||
	bad "reply.eml: To the author, Cc the list, per governor against itself on the base, the Kernels measured" "$(cat "$E2E_TMP/check.txt")"
finish
