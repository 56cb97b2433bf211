# shellcheck shell=sh
# modpreload analyze (analyze/): the reports these cases make, read back.
# `$bin analyze` execs the analyzer beside the binary (build/asan/
# modpreload-analyze). The text is checked against the report it reads
# (jq), the SVG with an XML parser.
# shellcheck disable=SC2034,SC2154 # RULES: read by lib.sh's run; t, rc, bin, top: set by cli.sh and lib.sh

# A run with a chain, leaves, a failure and its dependent: base > mid > top
# is the critical chain, bad fails (ENODEV), badkid is skipped.
analyze_run() {
	setup 'base\nmid base\ntop mid\nleaf1 base\nleaf2 base\nbad base\nbadkid bad\nside\n'
	RULES=base:0:100,mid:0:300,top:0:200,leaf1:0:150,leaf2:0:50,bad:19:20,side:0:80
	run -j 2 --pool=fixed top leaf1 leaf2 badkid side
}
# a C1 control (U+0080..U+009F) as UTF-8: what terminals act on
raw_c1() { LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$@"; }
analyze() { "$bin" analyze "$@" >"$t/an.out" 2>"$t/an.err"; arc=$?; }
# the lines of the analysis between the heading that starts with $1 and the next blank line
section() { awk -v h="$1" 'index($0, h) == 1 { on = 1; next } on && /^$/ { exit } on' "$t/an.out"; }
# an XPath-less look at the SVG: python3's own XML parser, as any SVG reader must parse it
svg_count() { # FILE WHAT: rects, titles, crit, lines, handover
	python3 - "$1" "$2" <<'EOT'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
root = d.documentElement
assert root.tagName == "svg" and root.getAttribute("xmlns") == "http://www.w3.org/2000/svg"
rects = [r for r in d.getElementsByTagName("rect") if r.getElementsByTagName("title")]
cls = lambda e: e.getAttribute("class").split()
what = sys.argv[2]
if what == "bars":
    print(len(rects))
elif what == "titles":
    print(" ".join(sorted(r.getElementsByTagName("title")[0].firstChild.data.split(":")[0] for r in rects)))
elif what == "crit":
    print(len([r for r in rects if "crit" in cls(r)]))
elif what == "held":
    print(len([r for r in rects if "held" in cls(r)]))
elif what == "fail":
    print(len([r for r in rects if "fail" in cls(r)]))
elif what == "chain":
    print(len([e for e in d.getElementsByTagName("line") if "chain" in cls(e)]))
elif what == "handover":
    print(len([e for e in d.getElementsByTagName("line") if "handover" in cls(e)]))
elif what == "hofits":
    # the hand-over's label inside the drawing (11px: 6.4 px a letter at most)
    w = float(root.getAttribute("width"))
    for e in d.getElementsByTagName("text"):
        if "ho" in cls(e):
            x, n = float(e.getAttribute("x")), 6.4 * len(e.firstChild.data)
            left = x - n if e.getAttribute("text-anchor") == "end" else x
            print(1 if 0 <= left and left + n <= w else 0)
EOT
}

t_analyze() {
	analyze_run
	check "the run: exit 1" eq "$rc" 1
	analyze "$t/r.json"
	check "exit 0" eq "$arc" 0
	check "nothing on stderr" eq "$(cat "$t/an.err")" ""
	check "the header names the version and kernel" grep -q "^modpreload $(cat "$top/VERSION") on 1.0: 8 modules in " "$t/an.out"
	check "the counts" grep -q "^  6 loaded, 0 already live, 0 builtin, 1 failed, 1 skipped, 0 hung$" "$t/an.out"
	# blame: the modules that took time, slowest first, as the report's ms say
	jq -r '[.modules[] | select(.ms > 0)] | sort_by(-.ms) | .[].name' "$t/r.json" >"$t/want.blame"
	section "Load time, slowest first" | awk '{ print $2 }' >"$t/got.blame"
	check "blame: every module that took time, slowest first" cmp -s "$t/want.blame" "$t/got.blame"
	check "blame: mid first (300 ms)" eq "$(head -n 1 "$t/got.blame")" mid
	check "blame: bad marked failed" grep -q ' bad (failed)$' "$t/an.out"
	# the critical chain: the report's, in its order, each with @start and +took
	check "chain: the report's" eq "$(section "Critical chain" | awk '{ print $3 }' | tr '\n' ' ')" \
		"$(jq -r '.critical_path.modules | join(" ")' "$t/r.json") "
	check "chain: base > mid > top" eq "$(section "Critical chain" | awk '{ print $3 }' | tr '\n' ' ')" "base mid top "
	check "chain: each link @start +took" eq "$(section "Critical chain" | grep -c '^  @[0-9.]*m*s *+[0-9.]*m*s ')" 3
	# problems: each with why
	check "failed, with errno and why" grep -q "^  failed: bad: init() found no device (ENODEV); dependency of badkid$" "$t/an.out"
	check "skipped, with why" grep -q "^  skipped: badkid: depends on bad, which failed (ENODEV)" "$t/an.out"
	check "no hand-over said" grep -q "^No hand-over" "$t/an.out"
	# the duplicate cost: said when (and only when) the report has it
	if [ "$(jq '.duplicate_cost | type' "$t/r.json")" = '"object"' ]; then
		check "duplicates: the estimate" grep -q "^Duplicates: a loader per request would have made the kernel allocate" "$t/an.out"
	else
		check "duplicates: none without an estimate" not grep -q "^Duplicates:" "$t/an.out"
	fi
	# the same from standard input
	"$bin" analyze - <"$t/r.json" >"$t/an.stdin" 2>&1
	check "from standard input: the same" cmp -s "$t/an.out" "$t/an.stdin"
	# the boot id: the report carries this boot's, and analyze says when a
	# report carries another's or none (the analysis still follows)
	this=$(cat /proc/sys/kernel/random/boot_id)
	check "the report carries this boot's id" eq "$(jq -r .boot_id "$t/r.json")" "$this"
	jq '.boot_id = "0f6e6d1c-3a43-4a4e-9d53-1f1b0f1d2e3c\u001b"' "$t/r.json" >"$t/other.json"
	analyze "$t/other.json"
	check "another boot's: exit 0" eq "$arc" 0
	check "another boot's: said, once" eq "$(cat "$t/an.err")" \
		"modpreload analyze: $t/other.json: not this boot's report (its boot id 0f6e6d1c-3a43-4a4e-9d53-1f1b0f1d2e3c\x1b, this boot's $this)"
	check "another boot's: the analysis" grep -q "^Critical chain" "$t/an.out"
	jq 'del(.boot_id)' "$t/r.json" >"$t/none.json"
	analyze "$t/none.json"
	check "no boot id: exit 0" eq "$arc" 0
	check "no boot id: said, once" eq "$(cat "$t/an.err")" \
		"modpreload analyze: $t/none.json: no boot id in the report: it may not be this boot's"
}

t_analyze_svg() {
	analyze_run
	analyze --svg "$t/t.svg" "$t/r.json"
	check "exit 0" eq "$arc" 0
	check "the text too" grep -q "^Critical chain" "$t/an.out"
	check "an SVG an XML parser reads" svg_count "$t/t.svg" bars >/dev/null
	# a bar for each module that was loaded or failed in a worker: all but badkid
	check "a bar for each load" eq "$(svg_count "$t/t.svg" bars)" \
		"$(jq '[.modules[] | select(.worker >= 0 and .end_ms > .start_ms)] | length' "$t/r.json")"
	check "their names" eq "$(svg_count "$t/t.svg" titles)" "bad base leaf1 leaf2 mid side top"
	check "the critical chain marked" eq "$(svg_count "$t/t.svg" crit)" 3
	check "the chain linked" eq "$(svg_count "$t/t.svg" chain)" 2
	check "the failure red" eq "$(svg_count "$t/t.svg" fail)" 1
	check "no hand-over line" eq "$(svg_count "$t/t.svg" handover)" 0
	"$bin" analyze --svg - "$t/r.json" >"$t/out.svg" 2>"$t/an.err"
	check "--svg -: the SVG alone on standard output" eq "$(head -c 5 "$t/out.svg")" "<?xml"
	check "--svg -: the same drawing" cmp -s "$t/t.svg" "$t/out.svg"
}

# The hand-over (handover.sh's devices): when, what was held, how each ended.
t_analyze_handover() {
	handover_setup
	RULES=slow:0:1500,user:0:200
	run_handover
	check "the run handed over" wait_report
	analyze --svg "$t/t.svg" "$t/r.json"
	check "exit 0" eq "$arc" 0
	# slow and user at least: quick too when a slow host kept it in init()
	n=$(jq '.handover.held | length' "$t/r.json")
	check "when, how many held" grep -q \
		"^Hand-over at [0-9.]*m*s: the boot went on; $n modules held from udev until final, 0 devices replayed$" \
		"$t/an.out"
	check "slow: loaded after it" grep -q "^  slow: loaded at [0-9.]*m*s, [0-9.]*m*s after the hand-over$" "$t/an.out"
	check "user: loaded after it" grep -q "^  user: loaded at " "$t/an.out"
	check "blame marks them" eq "$(grep -c ' (handed over)$' "$t/an.out")" "$n"
	check "SVG: the hand-over line" eq "$(svg_count "$t/t.svg" handover)" 1
	check "SVG: held bars dashed" eq "$(svg_count "$t/t.svg" held)" "$n"
	check "SVG: the hand-over's label inside it" eq "$(svg_count "$t/t.svg" hofits)" 1
	# a hand-over as late as the last load: its label still inside
	jq '.handover.at_ms = ([.modules[].end_ms // 0] | max)' "$t/r.json" >"$t/late.json"
	analyze --svg "$t/late.svg" "$t/late.json"
	check "SVG, a late hand-over: its label inside it" eq "$(svg_count "$t/late.svg" hofits)" 1
}

# What is no report: said, exit 3; usage: exit 2; and what a report holds
# reaches the terminal and the SVG escaped.
t_analyze_bad() {
	setup 'a\n'
	analyze "$t/none.json"
	check "missing: exit 3" eq "$arc" 3
	check "missing: said" grep -q "^modpreload analyze: $t/none.json: No such file or directory$" "$t/an.err"
	printf '{"modules": [1, 2' >"$t/cut.json"
	analyze "$t/cut.json"
	check "cut short: exit 3" eq "$arc" 3
	check "cut short: where" grep -q "cut.json: not JSON (at byte 17)$" "$t/an.err"
	printf '{"modules": []}' >"$t/other.json"
	analyze "$t/other.json"
	check "JSON, no report: exit 3" eq "$arc" 3
	check "JSON, no report: said" grep -q "other.json: JSON, but no modpreload report$" "$t/an.err"
	analyze --bogus
	check "an unknown option: exit 2" eq "$arc" 2
	analyze a.json b.json
	check "two reports: exit 2" eq "$arc" 2
	"$bin" analyze --help >/dev/full 2>/dev/null
	check "--help to a full disk: exit 4" eq "$?" 4
	# a modpreload with no analyzer beside it nor in ../lib/modpreload
	mkdir -p "$t/alone"
	cp "$bin" "$t/alone/modpreload"
	"$t/alone/modpreload" analyze "$t/none.json" >/dev/null 2>"$t/an.err"
	check "no analyzer: exit 3" eq "$?" 3
	check "no analyzer: where it looked" grep -q "^modpreload: analyze: neither $t/alone/modpreload-analyze nor" \
		"$t/an.err"
	run a
	analyze --svg "$t/no/such/dir/t.svg" "$t/r.json"
	check "an SVG it cannot write: exit 4" eq "$arc" 4
	# a name and a warning with markup, control bytes and a bad UTF-8 byte
	jq '.modules[0].name = "a<b>&\"c\u001b[31m" | .critical_path.modules = ["a<b>&\"c\u001b[31m"]
		| .warnings = ["bell\u0007 here"]' "$t/r.json" >"$t/odd.json"
	printf '%s' "$(cat "$t/odd.json")" | sed 's/bell/\xff\xfebell/' >"$t/odd2.json"
	analyze --svg "$t/odd.svg" "$t/odd2.json"
	check "odd names: exit 0" eq "$arc" 0
	check "odd names: control bytes escaped" grep -qF 'a<b>&"c\x1b[31m' "$t/an.out"
	check "odd names: no raw control byte" not raw_ctl "$t/an.out"
	check "odd names: the SVG still parses" eq "$(svg_count "$t/odd.svg" bars)" 1
	# a report made up to harm (issue 34): an unknown state with markup, a
	# mode with ESC and BEL, C1 controls (U+009B is CSI), what XML 1.0
	# cannot hold (U+FFFE)
	jq '.mode = "\u001b]0;x\u0007\u009b2J" | .modules[0].state = "<script>alert(1)</script>\u009b"
		| .modules[0].name = "a\ufffe\u0085" | .critical_path.modules = ["a\ufffe\u0085"]
		| .warnings = ["\u009b1m"]' "$t/r.json" >"$t/harm.json"
	analyze --svg "$t/harm.svg" "$t/harm.json"
	check "made up to harm: exit 0" eq "$arc" 0
	check "made up to harm: the mode escaped" grep -qF ' (\x1b]0;x\x07\xc2\x9b2J, ' "$t/an.out"
	check "made up to harm: no raw ESC or BEL" not raw_ctl "$t/an.out"
	check "made up to harm: no C1 control" not raw_c1 "$t/an.out"
	check "made up to harm: the SVG parses" eq "$(svg_count "$t/harm.svg" bars)" 1
	check "made up to harm: no <script> in the SVG" not grep -q '<script' "$t/harm.svg"
	check "made up to harm: no C1 control in the SVG" not raw_c1 "$t/harm.svg"
}

# A booted-system report (--leave-single): what was left to udev, and to
# systemd-modules-load, is counted apart and listed as no problem.
t_analyze_left() {
	setup 'solo alias=platform:solo\nshared\nd1 shared alias=platform:d1\nd2 shared alias=platform:d2\nnamed\n'
	for d in solo d1 d2; do
		mkdir -p "$t/sys/devices/platform/$d.0"
		echo "MODALIAS=platform:$d" >"$t/sys/devices/platform/$d.0/uevent"
	done
	echo modules_load=named >"$t/cmdline"
	run --coldplug --settle-ms 50 --leave-single --modules-load
	check "the run: exit 0" eq "$rc" 0
	analyze "$t/r.json"
	check "exit 0" eq "$arc" 0
	check "the counts, with what was left to udev and systemd-modules-load" \
		grep -q "^  3 loaded, 0 already live, 0 builtin, 0 failed, 2 skipped, 0 hung (left to udev, one device each: 1) (left to systemd-modules-load, names only: 1)$" "$t/an.out"
	check "no problem listed" grep -q "^Nothing failed, hung, was skipped or found no device\.$" "$t/an.out"
}
