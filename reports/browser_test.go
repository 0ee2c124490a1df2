package reports

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/internal/optional"
)

// chromiumFlags are the flags of every headless Chromium run of the
// tests: no sandbox (CI runs as root), no GPU, nothing fetched from the
// network, no first-run work. The caller adds a fresh --user-data-dir.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--no-first-run"}

// findChromium returns Debian's chromium, skipping the test when it is
// missing unless COLOC_REQUIRE_CHROMIUM=1 (set by .ci/run), which fails it.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	optional.Missing(t, "chromium", "COLOC_REQUIRE_CHROMIUM", "chromium is not installed (apt-get install chromium fonts-liberation)")
	return ""
}

// checkPage loads a report in an iframe 1,200 px wide and, once the frame
// has loaded (which waits for its images), writes how many images it has
// and which did not load (an image that failed has naturalWidth 0), and
// how many comparison columns of the policy tables ("... vs fifo") there
// are and which lie, unscrolled, beyond the visible width of their table
// (a table scrolls sideways when it is wider than the page).
const checkPage = `<!DOCTYPE html>
<html><body>
<iframe id="f" src="report/index.html" width="1200" height="800"></iframe>
<pre id="out">pending</pre>
<script>
document.getElementById('f').onload = function () {
  const imgs = Array.from(this.contentDocument.images);
  const bad = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
  const doc = this.contentDocument, view = this.contentWindow.innerWidth;
  const cols = Array.from(doc.querySelectorAll('th')).filter(th => / vs /.test(th.textContent));
  const hidden = cols.filter(th => {
    const t = th.closest('table'), r = th.getBoundingClientRect(), tr = t.getBoundingClientRect();
    return r.right > tr.left + t.clientWidth + 0.5 || r.right > view;
  }).map(th => th.textContent.replace(/ /g, '_'));
  document.getElementById('out').textContent = 'images ' + imgs.length + ' broken ' + bad.length + ' ' + bad.join(' ') +
    '|columns ' + cols.length + ' hidden ' + hidden.length + ' ' + hidden.join(' ');
};
</script>
</body></html>
`

var checkOut = regexp.MustCompile(`<pre id="out">images (\d+) broken (\d+) ?([^|<]*)\|columns (\d+) hidden (\d+) ?([^<]*)</pre>`)

// The report in a real browser: a report with every kind of figure
// (small stage files of every kind plus a campaign) rendered in headless Chromium at
// 1,200 px, every image of index.html loaded, and the comparison columns
// of every policy table in view without scrolling sideways.
func TestReportInBrowser(t *testing.T) {
	if testing.Short() && os.Getenv("COLOC_REQUIRE_CHROMIUM") != "1" {
		t.Skip("starts a browser (a few seconds); not in -short mode")
	}
	bin := findChromium(t)
	base := t.TempDir()
	cfg := stagedReport(t, filepath.Join(base, "report"))
	cfg.Campaign = campaignData(t)
	build(t, cfg)
	page := readFile(t, filepath.Join(base, "report", "index.html"))
	want := strings.Count(page, "<img ")
	check := filepath.Join(base, "check.html")
	if err := os.WriteFile(check, []byte(checkPage), 0o644); err != nil {
		t.Fatal(err)
	}
	// The deadline only guards against a hung browser; the check itself
	// waits for the page's load event, not for a time.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append(append([]string{}, chromiumFlags...), "--user-data-dir="+filepath.Join(base, "profile"),
		"--allow-file-access-from-files", "--virtual-time-budget=30000", "--dump-dom", "file://"+check)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, tail(stderr.String(), 2000))
	}
	m := checkOut.FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the check page did not report (the frame never loaded?):\n%s\nstderr:\n%s", tail(string(dom), 2000), tail(stderr.String(), 2000))
	}
	if got := string(m[1]); got != fmt.Sprint(want) {
		t.Errorf("the browser saw %s images, index.html has %d", got, want)
	}
	if string(m[2]) != "0" {
		t.Errorf("%s images did not load: %s", m[2], m[3])
	}
	if want < 20 {
		t.Errorf("only %d images in the report", want)
	}
	if n := strings.Count(page, " vs fifo</th>"); string(m[4]) != fmt.Sprint(n) || n < 2 {
		t.Errorf("the browser saw %s comparison columns, index.html has %d (want at least 2)", m[4], n)
	}
	if string(m[5]) != "0" {
		t.Errorf("%s comparison columns are hidden behind a sideways scroll at 1,200 px: %s", m[5], m[6])
	}
	t.Logf("%s: %d images, all loaded", bin, want)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
