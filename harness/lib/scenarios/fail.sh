# shellcheck shell=sh
# The failure scenario every Debian generator runs (dracut-fail.sh,
# itools-fail.sh), written once. The case sources its family's host.sh
# (which brings harness/lib/debimage.sh), builds its image, then calls
#   scenario_fail VERDICT IMG STEM KEY ASK MORE LABEL
# The image boots at 4 vCPUs with modules whose dependencies fail
# (mpt_fail: ENODEV) or hang in init() (mpt_hang) asked for,
# rd.modpreload.timeout=5: the initramfs's modpreload step returns, udevd
# starts, the root's init runs, everything else is loaded once, and what
# coldplug asked for by modpreload (deb_check_failing with the report KEY).
# rd.modpreload.jobs=1: never more than one of modpreload's finit_module
# calls in the kernel, plus the hung one once given up on. ASK=mpt_params
# (rd.driver.pre or rd.modpreload.modules) with mpt_params.value=7:
# modpreload loads it, once, with its option. MORE: more of the command
# line (how this generator's image is asked for the failing modules, if
# not by its own list). The result is $DEB_WORK/logs/STEM.txt; LABEL names
# the boot on stderr; the verdict is vm/$name/VERDICT.

scenario_fail() {
	_sf_res=$DEB_WORK/logs/$3.txt
	deb_run "$_sf_res" "$2" 4 \
		"${6:+$6 }rd.modpreload.timeout=5 rd.modpreload.jobs=1 $5=mpt_params mpt_params.value=7"
	deb_check_root "$_sf_res"
	deb_check_failing "$_sf_res" "$4"
	_sf_inflight=$(mpt_num finit_max_inflight.modpreload "$_sf_res")
	if [ "$_sf_inflight" -lt 1 ] || [ "$_sf_inflight" -gt 2 ]; then
		fail "rd.modpreload.jobs=1: up to $_sf_inflight of modpreload's loads in the kernel at once"
	fi
	eq "mpt_params load attempts" "$(mpt_num load.mpt_params "$_sf_res")" 1
	eq "mpt_params.value" "$(mpt_get param.mpt_params.value "$_sf_res")" 7
	case ,$(mpt_get loaded_by.modpreload "$_sf_res"), in
	*,mpt_params,*) ;;
	*) fail "$5=mpt_params was not loaded by modpreload" ;;
	esac
	deb_details "$7" "$_sf_res"
	verdict "$name/$1" "$(mpt_num finit_enter "$_sf_res") calls for $(mpt_num load_modules "$_sf_res") modules, 1 failed, 1 hung"
}
