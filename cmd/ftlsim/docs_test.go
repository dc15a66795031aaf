//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/internal/testtier"
)

// TestDocs checks every Markdown file git tracks (but the generated
// review reports, see generatedDocs), as a clean clone has them:
//
//   - every relative link names a tracked file or folder, and every
//     #anchor a heading of its page;
//   - every inline code span that names a path under one of the
//     repository's folders (`controller/presets/lines`) names a tracked
//     one, from the root or from the page's folder;
//   - every command of every ```sh block runs and exits as the page says:
//     from a copy of the tracked files (git ls-files), one copy a page, the
//     commands of a page in order in it, with the ftlsim binary (built
//     once) first on the PATH, each as bash -c runs it. A command is one
//     line of a block, or several joined by trailing backslashes; lines
//     starting with # are comments.
//
// Commands that take long run shortened in the default tier, as the
// table docCommands says; FTLSIM_LONG=1 runs their documented form where
// the table allows. The test fails when a documented command fails, when
// a documented file is missing, and when a table entry matches no
// documented command (so the table cannot go stale).
func TestDocs(t *testing.T) {
	root, tracked := trackedFiles(t)
	pages := markdownPages(t, root, tracked)
	for _, p := range pages {
		t.Run(p.path+"/links", func(t *testing.T) { checkLinks(t, p, pages, tracked) })
	}

	bin := buildCommands(t, root, pages)
	used := map[string]bool{}
	for _, p := range pages {
		if len(p.commands) == 0 {
			continue
		}
		var runs []docRun
		for _, c := range p.commands {
			r := plan(t, p, c, bin)
			used[r.entry] = r.entry != ""
			runs = append(runs, r)
		}
		t.Run(p.path+"/commands", func(t *testing.T) {
			t.Parallel()
			dir := copyTracked(t, root, tracked)
			for _, r := range runs {
				runDocCommand(t, dir, bin, r)
			}
		})
	}
	for _, e := range docCommands {
		if !used[e.doc] {
			t.Errorf("docCommands has an entry for %q, which no Markdown file shows: update or delete it", e.doc)
		}
	}
}

// generatedDocs are tracked Markdown files TestDocs leaves out: written
// by a command, checked by that command's tests.
var generatedDocs = []string{
	// ftlsim review's reports, whose links name data/ files the review
	// writes beside them and git does not keep.
	"examples/review-quick/report.md",
	"examples/review-today/report.md",
}

// pendingFiles are files the documentation links to that another change
// is adding; each is deleted from here when it lands (the test then says
// so).
var pendingFiles = map[string]string{}

// page is one Markdown file: its headings' anchors, its links and code
// spans, and its shell commands.
type page struct {
	path     string // relative to the repository's root, with slashes
	anchors  map[string]bool
	links    []docLink
	spans    []docLink
	commands []docCommand
}

type docLink struct {
	target string
	line   int
}

// docCommand is one shell command of a page.
type docCommand struct {
	text string // continuation lines joined
	line int
}

// trackedFiles returns the repository's root and the files git tracks
// there that exist in the working tree.
func trackedFiles(t *testing.T) (string, map[string]bool) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the documentation test copies the files git tracks")
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git work tree: the documentation test copies the files git tracks")
	}
	root := strings.TrimSpace(string(out))
	out, err = exec.Command("git", "-C", root, "ls-files", "-z").Output()
	require.NoError(t, err, "git ls-files")
	tracked := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil { // deleted but not yet committed: not there
			tracked[f] = true
		}
	}
	return root, tracked
}

// markdownPages reads and parses the tracked Markdown files.
func markdownPages(t *testing.T, root string, tracked map[string]bool) []page {
	t.Helper()
	var pages []page
	for _, f := range slices.Sorted(maps.Keys(tracked)) {
		if !strings.HasSuffix(f, ".md") || slices.Contains(generatedDocs, f) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		pages = append(pages, parsePage(f, string(b)))
	}
	require.NotEmpty(t, pages)
	return pages
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	spanRE    = regexp.MustCompile("`([^`]+)`")
	headingRE = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	fenceRE   = regexp.MustCompile("^(\\s*)```+\\s*(\\S*)")
)

// parsePage splits a Markdown file into what TestDocs checks.
func parsePage(name, text string) page {
	p := page{path: name, anchors: map[string]bool{}}
	seen := map[string]int{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			indent, lang := m[1], m[2]
			var cmd strings.Builder
			start := 0
			for i++; i < len(lines) && !fenceRE.MatchString(lines[i]); i++ {
				if lang != "sh" {
					continue
				}
				l := strings.TrimPrefix(lines[i], indent)
				trimmed := strings.TrimSpace(l)
				if cmd.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
					continue
				}
				if cmd.Len() == 0 {
					start = i + 1
				}
				if more, ok := strings.CutSuffix(strings.TrimRight(l, " "), "\\"); ok {
					cmd.WriteString(more)
					continue
				}
				cmd.WriteString(l)
				p.commands = append(p.commands, docCommand{text: cmd.String(), line: start})
				cmd.Reset()
			}
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			a := anchor(m[1])
			if n := seen[a]; n > 0 {
				p.anchors[fmt.Sprintf("%s-%d", a, n)] = true
			} else {
				p.anchors[a] = true
			}
			seen[a]++
		}
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			p.links = append(p.links, docLink{m[1], i + 1})
		}
		for _, m := range spanRE.FindAllStringSubmatch(line, -1) {
			p.spans = append(p.spans, docLink{m[1], i + 1})
		}
	}
	return p
}

// anchor is the fragment GitHub gives a heading: lower case, spaces as
// hyphens, and of the rest only letters, digits, hyphens and underscores.
func anchor(heading string) string {
	heading = regexp.MustCompile("[`*]|\\[([^]]*)\\]\\([^)]*\\)").ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// repoPathRE picks the code spans that name a path in the repository:
// they start with one of its top-level folders.
var repoPathRE = regexp.MustCompile(`^(?:blockio|nand|ftl|controller|workload|sim|sweep|report|cli|cmd|examples|internal|docs|testdata)/[A-Za-z0-9_./+-]*$`)

// checkLinks checks a page's relative links and path spans.
func checkLinks(t *testing.T, p page, pages []page, tracked map[string]bool) {
	exists := func(rel string) bool {
		if tracked[rel] {
			return true
		}
		for f := range tracked {
			if strings.HasPrefix(f, strings.TrimSuffix(rel, "/")+"/") {
				return true
			}
		}
		return false
	}
	for _, l := range p.links {
		if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
			continue // not checked: the test needs no network
		}
		file, frag, _ := strings.Cut(l.target, "#")
		target := p.path
		if file != "" {
			target = path.Clean(path.Join(path.Dir(p.path), file))
		}
		if why, ok := pendingFiles[target]; ok {
			require.False(t, exists(target), "%s is in the repository now: delete it from pendingFiles (%s)", target, why)
			continue
		}
		if !exists(target) {
			t.Errorf("%s:%d: link to %s: no such file in the repository", p.path, l.line, l.target)
			continue
		}
		if frag == "" || !strings.HasSuffix(target, ".md") {
			continue
		}
		i := slices.IndexFunc(pages, func(q page) bool { return q.path == target })
		if i >= 0 && !pages[i].anchors[frag] {
			t.Errorf("%s:%d: link to %s: %s has no heading #%s", p.path, l.line, l.target, target, frag)
		}
	}
	for _, s := range p.spans {
		rel := strings.TrimPrefix(s.target, "./")
		if !repoPathRE.MatchString(rel) || strings.Contains(rel, "...") {
			continue
		}
		if _, ok := pendingFiles[rel]; ok {
			continue
		}
		// From the root, or from the page's folder (a README naming its
		// folder's files).
		if !exists(rel) && !exists(path.Join(path.Dir(p.path), rel)) {
			t.Errorf("%s:%d: `%s`: no such file or folder in the repository", p.path, s.line, s.target)
		}
	}
}

// goRunRE finds the programs a command runs with go run, so that they are
// built once, beside ftlsim, rather than by every command.
var goRunRE = regexp.MustCompile(`\bgo run (\./(?:cmd|examples)/[A-Za-z0-9_/-]+)`)

// buildCommands builds ftlsim and every program the pages go run, from
// the repository itself (its build cache is warm), into one folder.
func buildCommands(t *testing.T, root string, pages []page) string {
	t.Helper()
	pkgs := []string{"./cmd/ftlsim"}
	for _, p := range pages {
		for _, c := range p.commands {
			for _, m := range goRunRE.FindAllStringSubmatch(c.text, -1) {
				if !slices.Contains(pkgs, m[1]) {
					pkgs = append(pkgs, m[1])
				}
			}
		}
	}
	bin := t.TempDir()
	cmd := exec.Command("go", append([]string{"build", "-o", bin + "/"}, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build %s: %s", strings.Join(pkgs, " "), out)
	return bin
}

// copyTracked copies the tracked files into a new folder: a clean clone.
func copyTracked(t *testing.T, root string, tracked map[string]bool) string {
	t.Helper()
	dir := t.TempDir()
	for f := range tracked {
		src, dst := filepath.Join(root, f), filepath.Join(dir, f)
		info, err := os.Lstat(src)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			require.NoError(t, err)
			require.NoError(t, os.Symlink(target, dst))
			continue
		}
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, b, info.Mode().Perm()))
	}
	return dir
}

// docRun is what the test does with one documented command.
type docRun struct {
	where string // page:line
	doc   string // as documented
	run   string // what runs ("" with skip)
	skip  string
	exit  int
	entry string // the docCommands entry used, if any
	fio   bool
}

// plan applies the table to a command: what this tier runs.
func plan(t *testing.T, p page, c docCommand, bin string) docRun {
	t.Helper()
	doc := collapse(c.text)
	r := docRun{where: fmt.Sprintf("%s:%d", p.path, c.line), doc: doc, run: doc}
	if i := slices.IndexFunc(docCommands, func(e docEntry) bool { return collapse(e.doc) == doc && (e.page == "" || e.page == p.path) }); i >= 0 {
		e := docCommands[i]
		r.entry, r.exit, r.fio = e.doc, e.exit, e.fio
		require.Zero(t, len(e.swap)%2, "docCommands %q: swap holds pairs", e.doc)
		require.False(t, (e.def == short || e.long == short) && len(e.swap) == 0, "docCommands %q: a short form needs swaps", e.doc)
		shortened := doc
		for j := 0; j < len(e.swap); j += 2 {
			require.Contains(t, shortened, e.swap[j], "docCommands %q: swap %q is not in the command", e.doc, e.swap[j])
			shortened = strings.Replace(shortened, e.swap[j], e.swap[j+1], 1)
		}
		f, tier := e.def, "the default tier"
		if testtier.IsLong() {
			f, tier = e.long, "the long tier"
		}
		switch f {
		case short:
			r.run = shortened
		case skip:
			r.skip = "not in " + tier + ": " + e.why
		}
	}
	// go run of a program the test built: the built program, at once.
	r.run = goRunRE.ReplaceAllStringFunc(r.run, func(m string) string {
		return filepath.Join(bin, path.Base(strings.TrimPrefix(m, "go run ")))
	})
	return r
}

// collapse joins the runs of spaces a command's alignment adds.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// runDocCommand runs one command in dir and checks its exit status.
func runDocCommand(t *testing.T, dir, bin string, r docRun) {
	t.Helper()
	if r.skip != "" {
		t.Logf("%s: %s: %s", r.where, r.skip, r.doc)
		return
	}
	if r.fio {
		examples := os.Getenv("FTLSIM_FIO_EXAMPLES")
		if examples == "" {
			t.Logf("%s: not run: needs fio's examples (FTLSIM_FIO_EXAMPLES=DIR): %s", r.where, r.doc)
			return
		}
		abs, err := filepath.Abs(examples)
		require.NoError(t, err)
		_ = os.MkdirAll(filepath.Join(dir, "fio"), 0o755)
		_ = os.Symlink(abs, filepath.Join(dir, "fio", "examples"))
	}
	limit := 5 * time.Minute
	if testtier.IsLong() {
		limit = 30 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", r.run)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own process group, killed whole on timeout
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	took := time.Since(start).Round(100 * time.Millisecond)
	if ctx.Err() != nil {
		t.Errorf("%s: stopped after %v: %s\nshorten it in docCommands (cmd/ftlsim/docs_commands_test.go)", r.where, limit, r.run)
		return
	}
	if code != r.exit {
		t.Errorf("%s: exit status %d (%v), documented %d:\n  %s\n%s", r.where, code, err, r.exit, r.run, tail(out.String(), 2000))
		return
	}
	shown := r.run
	if r.run != r.doc {
		shown += "   (documented: " + r.doc + ")"
	}
	t.Logf("%s: %v: %s", r.where, took, shown)
}

// tail is the end of a command's output, for a failure's message.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
