package browser

import (
	"os"
	"os/exec"
)

// Find returns the Chromium to run: $ISOCHECK_CHROMIUM when set, else
// /usr/bin/chromium, else the first of chromium, chromium-browser and
// google-chrome on the PATH. ok is false when there is none.
func Find() (path string, ok bool) {
	if p := os.Getenv("ISOCHECK_CHROMIUM"); p != "" {
		if isExecutable(p) {
			return p, true
		}
		return "", false
	}
	if p := "/usr/bin/chromium"; isExecutable(p) {
		return p, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// isExecutable reports whether path is a regular file someone may run.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
