#!/bin/sh
# On a kernel without the hook every command says so in one line, and
# nothing is loaded. Such a kernel is shown to tslackctl by mounting, over
# /sys/kernel/btf/vmlinux, BTF made from this kernel's without
# timer_slack_ops (bpftool gen min_core_btf): the BTF is what tslackctl
# looks at.
. /usr/local/lib/tslack/harness.sh
plan 9
nohook="tslackctl: this kernel has no timer_slack_ops: boot one with the tslack patches (CONFIG_TIMER_SLACK_BPF=y)"
tslackctl detach
mkdir -p "$CG/nh"
mount -o bind /usr/local/lib/tslack/nohook.btf /sys/kernel/btf/vmlinux ||
	{ fail nohook/mount "cannot mount over /sys/kernel/btf/vmlinux"; exit 1; }
expect_error "nohook/attach" 1 "$nohook" tslackctl attach
eq "nohook/attach_one_line" 1 "$(tslackctl attach 2>&1 | wc -l)"
expect_error "nohook/set" 1 "$nohook" tslackctl set nh 1ms
expect_error "nohook/list" 1 "$nohook" tslackctl list
expect_error "nohook/get" 1 "$nohook" tslackctl get nh
eq "nohook/status" "attached: no (this kernel has no timer_slack_ops)|3" \
	"$(tslackctl status)|$(tslackctl status >/dev/null; echo $?)"
# What tslack.service and tslackd.service run as ExecCondition=: exit 1
# (skipped, not failed) and one line, also for a user.
expect_error "nohook/supported" 1 "$nohook" tslackctl supported
eq "nohook/supported_user" "$nohook|1" \
	"$(tslack-probe as-user 1000 sh -c 'tslackctl supported 2>&1; echo "|$?"' | tr -d '\n')"
umount /sys/kernel/btf/vmlinux
eq "nohook/nothing_loaded" "" "$(ls /sys/fs/bpf)"
rmdir "$CG/nh"
exit 0
