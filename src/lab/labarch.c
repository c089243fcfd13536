// SPDX-License-Identifier: GPL-2.0-or-later
/* The lab's architectures (see labarch.h): one table, and instance naming. */
#include "lab/labarch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct il_lab_arch_info il_lab_archs[IL_LAB_NARCH] = {
	[IL_LAB_ARM64] = {
		.name = "arm64", .uname = "aarch64", .instance = "labvm", .hosts_dir = "hosts/labvm",
		.idle_file = "idle-states.dtsi", .qemu = "qemu-system-aarch64", .qemu_pkg = "qemu-system-arm",
		.machine = "virt", .cpu = "cortex-a57", .console = "ttyAMA0", .nic = "virtio-net-device",
		.kernel_arch = "arm64", .cross_compile = "aarch64-linux-gnu-", .target = "Image",
		.kernel_prefix = "labvm", .deb_arch = "arm64", .triple = "aarch64-linux-gnu",
		.interp = "/lib/ld-linux-aarch64.so.1", .wl_arch = "aarch64",
		.firmware_tools = "qemu-system-arm, device-tree-compiler",
		.underneath = "every idle state is WFI underneath",
		.caveat = "Measured on idlelab's QEMU lab host (arm64, TCG): governor decisions and idle counters are real; "
			  "every idle state is WFI underneath, so power and exit-latency differences are not.",
	},
	[IL_LAB_X86_64] = {
		.name = "x86_64", .uname = "x86_64", .instance = "x86", .hosts_dir = "hosts/labvm-x86",
		.idle_file = "idle-tables.json", .qemu = "qemu-system-x86_64", .qemu_pkg = "qemu-system-x86",
		.machine = "q35", .cpu = "qemu64", .console = "ttyS0", .nic = "virtio-net-pci",
		.kernel_arch = "x86_64", .cross_compile = NULL, .target = "bzImage",
		.kernel_prefix = "labvm-x86", .deb_arch = "amd64", .triple = "x86_64-linux-gnu",
		.interp = "/lib64/ld-linux-x86-64.so.2", .wl_arch = "x86_64", .firmware_tools = "acpica-tools (iasl)",
		.underneath = "every idle state is HLT underneath and POLL's timing is coarse",
		.caveat = "Measured on idlelab's QEMU lab host (x86_64, TCG, acpi_idle from idlelab's SSDT): governor "
			  "decisions and idle counters are real; every idle state is HLT underneath, so power and "
			  "exit-latency differences are not, and POLL's timing is coarse (TCG checks the clock every "
			  "200 cpu_relax() calls: a poll overstays its limit by hundreds of microseconds).",
	},
};

int il_lab_arch_parse(const char *s, enum il_lab_arch *out, struct il_err *err)
{
	static const struct { const char *alias; enum il_lab_arch a; } aliases[] = {
		{ "aarch64", IL_LAB_ARM64 }, { "x86", IL_LAB_X86_64 }, { "amd64", IL_LAB_X86_64 },
	};

	for (int i = 0; i < IL_LAB_NARCH; i++)
		if (s && !strcmp(s, il_lab_archs[i].name))
			return *out = (enum il_lab_arch)i, 0;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (s && !strcmp(s, aliases[i].alias))
			return *out = aliases[i].a, 0;
	return il_err_set(err, IL_EINVAL, "unknown lab architecture '%s' (arm64 or x86_64)", s ? s : "");
}

enum il_lab_arch il_lab_arch_of_instance(const char *instance)
{
	const char *p = il_lab_archs[IL_LAB_X86_64].instance;
	size_t n = strlen(p);

	return instance && !strncmp(instance, p, n) && (!instance[n] || instance[n] == '-') ? IL_LAB_X86_64 :
											      IL_LAB_ARM64;
}

int il_lab_instance_name(enum il_lab_arch arch, const char *name, char **out, struct il_err *err)
{
	const char *def = il_lab_archs[arch].instance;

	*out = NULL;
	if (!name || !*name)
		*out = strdup(def);
	else if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(name) ||
		 name[0] == '.' || name[0] == '-')
		return il_err_set(err, IL_EINVAL, "lab instance name '%s': letters, digits, '_', '.' and '-' only", name);
	else if (il_lab_arch_of_instance(name) == arch)
		*out = strdup(name);
	else if (arch == IL_LAB_ARM64)
		return il_err_set(err, IL_EINVAL, "lab instance name '%s' is the x86_64 lab's (x86, x86-NAME): use "
				  "--arch x86_64, or another name", name);
	else if (asprintf(out, "%s-%s", def, name) < 0)
		*out = NULL;
	return *out ? 0 : il_err_oom(err);
}

char *il_lab_host_name(const char *instance)
{
	char *s = NULL;

	if (!strcmp(instance, "labvm"))
		return strdup(instance);
	return asprintf(&s, "labvm-%s", instance) < 0 ? NULL : s;
}

const char *il_lab_instance_of_host(const char *host)
{
	if (!strcmp(host, "labvm"))
		return host;
	return !strncmp(host, "labvm-", 6) && host[6] ? host + 6 : NULL;
}

const struct il_lab_arch_info *il_lab_arch_by_uname(const char *machine)
{
	for (int i = 0; i < IL_LAB_NARCH; i++)
		if (machine && !strcmp(machine, il_lab_archs[i].uname))
			return &il_lab_archs[i];
	return NULL;
}
