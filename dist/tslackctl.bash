# bash completion for tslackctl(8)

_tslackctl_cgroups()
{
	local mnt=/sys/fs/cgroup cur=$1 pre=
	# A path below the mount is a directory like any other; "/a" is a cgroup
	# path as list prints it; "a" is relative to the cgroup2 root.
	if [[ $cur == "$mnt"/* ]]; then
		COMPREPLY+=($(compgen -d -S / -- "$cur"))
	else
		[[ $cur == /* ]] && pre=/ cur=${cur#/}
		COMPREPLY+=($(cd "$mnt" 2>/dev/null && compgen -d -P "$pre" -S / -- "$cur"))
	fi
	compopt -o nospace
}

_tslackctl()
{
	local cur prev words cword cmd i
	_init_completion -s || return

	for ((i = 1; i < cword; i++)); do
		[[ ${words[i]} != -* ]] && { cmd=${words[i]}; break; }
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W 'attach detach status supported follow set exempt get list
			check top stats --help --version --verbose' -- "$cur"))
		return
	fi
	case $prev in
	--id | --unit | --pid | --max-cgroups | -n | --iterations | -d | --delay | --depth | --for | --slack)
		return ;;
	--sort) COMPREPLY=($(compgen -W 'wakeups path slack' -- "$cur")); return ;;
	esac
	case $cmd in
	attach) COMPREPLY=($(compgen -W '--max-cgroups= --no-futex2 --help' -- "$cur")) ;;
	supported) COMPREPLY=($(compgen -W '--per-task --help' -- "$cur")) ;;
	follow) COMPREPLY=($(compgen -W '--help' -- "$cur")) ;;
	status | list) COMPREPLY=($(compgen -W '--json --help' -- "$cur")) ;;
	check) COMPREPLY=($(compgen -W '--json --fix --help' -- "$cur")) ;;
	top) COMPREPLY=($(compgen -W '--batch --iterations= --delay= --depth= --sort= --json
		--help' -- "$cur")) ;;
	set | exempt | get | stats)
		if [[ $cur == -* ]]; then
			case $cmd in
			set) COMPREPLY=($(compgen -W '--max --id= --unit= --help' -- "$cur")) ;;
			exempt) COMPREPLY=($(compgen -W '--id= --unit= --help' -- "$cur")) ;;
			get) COMPREPLY=($(compgen -W '--json --id= --unit= --pid= --help' -- "$cur")) ;;
			stats) COMPREPLY=($(compgen -W '--for= --slack= --json --id= --unit= --help' -- "$cur")) ;;
			esac
			[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace
		else
			_tslackctl_cgroups "$cur"
		fi
		;;
	esac
} && complete -F _tslackctl tslackctl
