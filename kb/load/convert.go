package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// DefaultConvertTimeout is how long one conversion step may take unless kb.convert_timeout
// says otherwise: an external program's run (one page through pdftoppm or tesseract), or the
// work of a loader in Go between two such runs.
const DefaultConvertTimeout = 2 * time.Minute

// TimeoutError is a converter that took longer than kb.convert_timeout. The file it was
// reading is skipped with this as its reason.
type TimeoutError struct {
	Converter string // "tesseract, page 3", "the PDF reader"
	Timeout   time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the converter (%s) took longer than kb.convert_timeout (%s); skipped", e.Converter, e.Timeout)
}

// converter is what one Load converts within: its context (cancelled when the ingest is, or
// when the watchdog fires, which kills any program still running), the timeout, OCR, and a
// private folder for intermediate files, removed when the load ends.
type converter struct {
	ctx     context.Context
	timeout time.Duration
	ocr     OCROptions
	wd      *watchdog

	status *OCRStatus // what the reader can do, asked once per load when first needed
	tmp    string
}

// LoadContext is Load under a context and kb.convert_timeout (LoadOptions.ConvertTimeout):
// cancelling ctx stops the load and kills any program it runs; a loader that works longer than
// the timeout without finishing a step is abandoned and its file skipped with that reason, so
// a file that hangs a parser costs the ingest one timeout, not the rest of the run. A loader in
// Go cannot be stopped from outside: an abandoned one runs on in the background until it
// returns, its result discarded.
func LoadContext(ctx context.Context, path string, opts LoadOptions) (*Document, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	timeout := opts.ConvertTimeout
	if timeout <= 0 {
		timeout = DefaultConvertTimeout
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel() // kills whatever an abandoned loader still runs
	cv := &converter{ctx: cctx, timeout: timeout, ocr: opts.OCR, wd: newWatchdog(timeout)}
	defer cv.wd.stop()

	type result struct {
		doc   *Document
		err   error
		panic any
		stack []byte
	}
	done := make(chan result, 1)
	go func() {
		defer cv.cleanup()
		defer func() {
			// A panic is raised again in the caller's goroutine, where a job's recover can
			// catch it as it could before loading moved here.
			if r := recover(); r != nil {
				done <- result{panic: r, stack: debug.Stack()}
			}
		}()
		doc, err := load(cv, path, opts)
		done <- result{doc: doc, err: err}
	}()
	finish := func(r result) (*Document, error) {
		if r.panic != nil {
			panic(fmt.Sprintf("%v\n\nloader goroutine:\n%s", r.panic, r.stack))
		}
		return r.doc, r.err
	}
	select {
	case r := <-done:
		return finish(r)
	case <-cv.wd.fired:
		select {
		case r := <-done: // it finished as the time ran out
			return finish(r)
		default:
		}
		return nil, &SkipError{Path: path, Reason: (&TimeoutError{Converter: "the " + loaderName(path) + " reader", Timeout: timeout}).Error()}
	case <-ctx.Done():
		// The program running is killed now; waiting for the loader to notice lets it remove
		// its temporary files before a cancelled ingest exits.
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return nil, fmt.Errorf("couldn't read %s: %w", path, ctx.Err())
	}
}

// loaderName names the loader of path for a timeout's reason: "PDF", "DOCX".
func loaderName(path string) string {
	if f, ok := formatByExt[strings.ToLower(filepath.Ext(path))]; ok && f != "" {
		return strings.ToUpper(f)
	}
	return "file"
}

// watchdog fires when the Go side of a load has worked for its timeout without finishing a
// step. It is paused while an external program runs, which has its own timeout.
type watchdog struct {
	d     time.Duration
	timer *time.Timer
	fired chan struct{}
	once  sync.Once
}

func newWatchdog(d time.Duration) *watchdog {
	w := &watchdog{d: d, fired: make(chan struct{})}
	w.timer = time.AfterFunc(d, func() { w.once.Do(func() { close(w.fired) }) })
	return w
}

func (w *watchdog) pause() { w.timer.Stop() }
func (w *watchdog) rearm() { w.timer.Reset(w.d) }
func (w *watchdog) stop()  { w.timer.Stop() }

// tempDir is the load's private folder (mode 0700), made when first needed.
func (c *converter) tempDir() (string, error) {
	if c.tmp != "" {
		return c.tmp, nil
	}
	dir, err := os.MkdirTemp("", "warren-convert-")
	if err != nil {
		return "", fmt.Errorf("couldn't make a folder for converting: %w", err)
	}
	c.tmp = dir
	return dir, nil
}

func (c *converter) cleanup() {
	if c.tmp != "" {
		os.RemoveAll(c.tmp)
	}
}

// copyToTemp copies the open file f (from its start) into the private folder, under a name
// ending in name, so programs read a file warren checked and named, never a path that may have
// changed since (or one that begins with "-").
func (c *converter) copyToTemp(f *os.File, name string) (string, error) {
	dir, err := c.tempDir()
	if err != nil {
		return "", err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return "", fmt.Errorf("couldn't read %s: %w", f.Name(), err)
	}
	// A name of its own: an e-mail's attachments share the message's folder.
	out, err := os.CreateTemp(dir, "*-"+name)
	if err != nil {
		return "", fmt.Errorf("couldn't copy %s for converting: %w", f.Name(), err)
	}
	path := out.Name()
	_, err = out.ReadFrom(f)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("couldn't copy %s for converting: %w", f.Name(), err)
	}
	return path, nil
}

// runTool runs an external program: never through a shell, with stdin empty, in dir, in its
// own process group, which is killed whole when ctx ends, after timeout, or when stdout
// passes maxOut bytes. It returns stdout; a failure names the program and the last line it
// wrote to stderr.
func runTool(ctx context.Context, timeout time.Duration, dir string, maxOut int64, prog string, args ...string) ([]byte, error) {
	name := filepath.Base(prog)
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, prog, args...)
	cmd.Dir = dir
	cmd.Stdin = nil // the null device
	cmd.Env = toolEnv()
	stdout := &capWriter{max: maxOut, over: cancel}
	stderr := &tailWriter{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second // a grandchild holding the pipes must not hold us
	inProcessGroup(cmd)
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		return nil, &TimeoutError{Converter: name, Timeout: timeout}
	case stdout.overflow:
		return nil, fmt.Errorf("%s wrote more than %d MB; stopped", name, maxOut>>20)
	case err != nil:
		if msg := stderr.lastLine(); msg != "" {
			return nil, fmt.Errorf("%s failed: %s", name, msg)
		}
		return nil, fmt.Errorf("%s failed: %v", name, err)
	}
	return stdout.buf.Bytes(), nil
}

// toolEnv is the environment a converter runs in: what it needs to find its programs, data
// and fonts, and nothing else of warren's (no API keys).
func toolEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TESSDATA_PREFIX",
		"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_DIRS", "FONTCONFIG_FILE", "FONTCONFIG_PATH", "SYSTEMROOT"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	// One OpenMP thread: tesseract's threads cost more than they give on a page (on 2 cores,
	// 34 pages a minute with one, 20 with its default).
	return append(env, "OMP_THREAD_LIMIT=1")
}

// capWriter keeps up to max bytes; past them it calls over (which kills the program) and
// drops the rest.
type capWriter struct {
	buf      bytes.Buffer
	max      int64
	over     func()
	overflow bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if w.overflow {
		return len(p), nil
	}
	if int64(w.buf.Len()+len(p)) > w.max {
		w.overflow = true
		w.over()
		return len(p), nil
	}
	return w.buf.Write(p)
}

// tailWriter keeps the last max bytes written.
type tailWriter struct {
	buf []byte
	max int
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

// lastLine is the last non-empty line kept, made safe to show: valid UTF-8, no control
// characters, at most 300 bytes.
func (w *tailWriter) lastLine() string {
	lines := strings.Split(strings.TrimSpace(strings.ToValidUTF8(string(w.buf), "\uFFFD")), "\n")
	s := strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.TrimSpace(lines[len(lines)-1]))
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}
