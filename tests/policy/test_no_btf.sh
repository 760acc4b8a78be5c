#!/bin/sh
# On a kernel without BTF tslack cannot load (CO-RE needs the kernel's
# types), in either mode: attach and supported say so in one line, and
# nothing is loaded. Such a kernel is shown to tslackctl by mounting an
# empty file over /sys/kernel/btf/vmlinux: the BTF is what it looks at.
. /usr/local/lib/tslack/harness.sh
plan 6
nobtf="tslackctl: this kernel has no BTF (/sys/kernel/btf/vmlinux): tslack needs CONFIG_DEBUG_INFO_BTF=y"
tslackctl detach
: > /tmp/empty.btf
mount -o bind /tmp/empty.btf /sys/kernel/btf/vmlinux ||
	{ fail nobtf/mount "cannot mount over /sys/kernel/btf/vmlinux"; exit 1; }
expect_error "nobtf/attach" 1 "$nobtf" tslackctl attach
eq "nobtf/attach_one_line" 1 "$(tslackctl attach 2>&1 | wc -l)"
# What the units run as ExecCondition=: exit 1 (skipped, not failed) and
# one line, also for a user.
expect_error "nobtf/supported" 1 "$nobtf" tslackctl supported
eq "nobtf/supported_user" "$nobtf|1" \
	"$(tslack-probe as-user 1000 sh -c 'tslackctl supported 2>&1; echo "|$?"' | tr -d '\n')"
eq "nobtf/status" "attached: no|3" "$(tslackctl status)|$(tslackctl status >/dev/null; echo $?)"
umount /sys/kernel/btf/vmlinux
eq "nobtf/nothing_loaded" "" "$(ls /sys/fs/bpf)"
exit 0
