// Package access keeps the analysts who may connect to `warren serve`: an OpenSSH
// authorized_keys file in which each key's comment names its analyst. An admin key carries the
// option environment="WARREN_ROLE=admin". The file is read on every connection, so adding or
// removing an analyst takes effect without a restart.
//
// The file is read as sshd reads it: from= and expiry-time= are honoured, restrict, pty and the
// no-*-forwarding options are accepted, and any other option (command=, permitopen=, no-pty, …)
// refuses its key rather than being ignored. A file that others could write is not trusted.
package access

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"warren/internal/atomicfile"
)

// Analyst is one key's owner, and the terms on which the key gets in.
type Analyst struct {
	Name        string    `json:"name"`
	Admin       bool      `json:"admin"`
	Type        string    `json:"type"`              // key type, e.g. ssh-ed25519
	Fingerprint string    `json:"fingerprint"`       // SHA256 fingerprint, as ssh-keygen -l shows it
	Options     []string  `json:"options,omitempty"` // the key's options, as written in the file
	From        string    `json:"from,omitempty"`    // the from= patterns; empty: from anywhere
	Expires     time.Time `json:"expires,omitzero"`  // after it the key is refused; zero: never
	// Refused says why this key never gets in, whatever the address or time (an option warren
	// does not honour, a file others could write); empty when it may.
	Refused string `json:"refused,omitempty"`
	key     gossh.PublicKey
	from    []fromPattern
	line    int
}

// Key is the analyst's public key.
func (a Analyst) Key() gossh.PublicKey { return a.key }

// Expired says whether the key's expiry-time has passed at now.
func (a Analyst) Expired(now time.Time) bool {
	return !a.Expires.IsZero() && now.After(a.Expires)
}

// RefusedAt says why the key may not connect at now from any address: Refused, or its expiry;
// empty when it may (from= aside, which needs the client's address: see Authorize).
func (a Analyst) RefusedAt(now time.Time) string {
	if a.Refused != "" {
		return a.Refused
	}
	if a.Expired(now) {
		return fmt.Sprintf("the key expired at %s (expiry-time): remove it with `warren users rm %s` and add it again with a later --expires", a.Expires.In(time.Local).Format("2006-01-02 15:04 MST"), a.Name)
	}
	return ""
}

// refusal says why the key may not connect from remote at now; empty when it may.
func (a Analyst) refusal(remote net.Addr, now time.Time) string {
	if why := a.RefusedAt(now); why != "" {
		return why
	}
	if len(a.from) > 0 {
		addr, ok := remoteAddr(remote)
		if !ok {
			return fmt.Sprintf(`couldn't tell the client's address (%v) to check from="%s"`, remote, a.From)
		}
		if ok, why := matchFrom(a.from, a.From, addr); !ok {
			return why
		}
	}
	return ""
}

// ErrUnknownKey is the refusal of a key that the authorized-keys file does not hold.
var ErrUnknownKey = errors.New("unknown key")

// ErrKeyRefused is the refusal of a key that the file holds but whose options (or the file's
// permissions) do not let in.
var ErrKeyRefused = errors.New("key refused")

// Refusal is why a connection's key was not let in, with what a log needs to say so.
type Refusal struct {
	Analyst     string // the analyst the file names for the key; empty for an unknown key
	Fingerprint string // the offered key's SHA256 fingerprint
	Remote      string // the client's address, as the server saw it
	Reason      string // what refused it and how to fix that
	err         error  // ErrUnknownKey or ErrKeyRefused
}

func (r *Refusal) Error() string {
	who := "the unknown key " + r.Fingerprint
	if r.Analyst != "" {
		who = r.Analyst + "'s key " + r.Fingerprint
	}
	if r.Remote != "" {
		who += " from " + r.Remote
	}
	return fmt.Sprintf("refused %s: %s", who, r.Reason)
}

// Unwrap makes errors.Is(err, ErrUnknownKey) and errors.Is(err, ErrKeyRefused) work.
func (r *Refusal) Unwrap() error { return r.err }

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// CheckName says what is wrong with an analyst name, if anything.
func CheckName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("analyst name %q: allowed are 1 to 64 letters, digits and . _ @ -, starting with a letter or digit", name)
	}
	return nil
}

// Load reads the analysts of an authorized-keys file. A missing file has none. A line that is
// not a key, or a key without a valid name, is an error that names the line, so that a typo
// never silently locks an analyst out or lets a nameless key in. A key whose options warren
// does not honour is loaded with Refused saying why, and so is every key of a file (or
// folder) that group or others may write: the other analysts still get in.
func Load(path string) ([]Analyst, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read the analysts' keys: %w", err)
	}
	defer f.Close()
	// The permissions of the file opened, not of whatever the path names a moment later.
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("couldn't read the analysts' keys: %w", err)
	}
	distrust := unsafeMode(path, fi)
	if dir := filepath.Dir(path); distrust == "" {
		if di, err := os.Stat(dir); err == nil {
			distrust = unsafeMode(dir, di)
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the analysts' keys: %w", err)
	}
	var out []Analyst
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		a.line = n
		if distrust != "" {
			a.Refused = distrust
		}
		out = append(out, a)
	}
	return out, sc.Err()
}

// parseLine reads one key line of the file.
func parseLine(line string) (Analyst, error) {
	key, comment, options, _, err := gossh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		return Analyst{}, fmt.Errorf("not an SSH public key (%v); fix or remove the line", err)
	}
	name := strings.TrimSpace(comment)
	if err := CheckName(name); err != nil {
		return Analyst{}, fmt.Errorf("the key's comment names its analyst: %w", err)
	}
	o := parseOptions(options)
	return Analyst{
		Name: name, Admin: o.admin, Type: key.Type(), Fingerprint: gossh.FingerprintSHA256(key),
		Options: options, From: o.fromRaw, Expires: o.expires, Refused: o.refused,
		key: key, from: o.from,
	}, nil
}

// Authorize decides a connection: it reads the file anew and lets the key in when a line of
// the file holds it and that line's options allow remote (the client's address) at now, as
// sshd would. It returns that line's analyst. A key that gets in is never an error; a refused
// one is a *Refusal, errors.Is ErrUnknownKey (not in the file) or ErrKeyRefused (its options,
// its expiry or the file's permissions refuse it). Any other error is the file's: unreadable,
// or a line that is not a named key.
func Authorize(path string, key gossh.PublicKey, remote net.Addr, now time.Time) (Analyst, error) {
	list, err := Load(path)
	if err != nil {
		return Analyst{}, err
	}
	r := &Refusal{Fingerprint: gossh.FingerprintSHA256(key)}
	if remote != nil {
		r.Remote = remote.String()
	}
	want := key.Marshal()
	var reasons []string
	// As sshd does, any line with this key whose options allow it lets it in.
	for _, a := range list {
		if !bytes.Equal(a.key.Marshal(), want) {
			continue
		}
		why := a.refusal(remote, now)
		if why == "" {
			return a, nil
		}
		if r.Analyst == "" {
			r.Analyst = a.Name
		}
		reasons = append(reasons, why)
	}
	if len(reasons) == 0 {
		r.Reason, r.err = "it is not in "+path+" (add it with `warren users add NAME KEYFILE`)", ErrUnknownKey
	} else {
		r.Reason, r.err = strings.Join(reasons, "; "), ErrKeyRefused
	}
	return Analyst{}, r
}

// Lookup finds the analyst whose key this is, if it may connect now. It cannot tell the
// client's address, so a key limited by from= is refused: a server should call Authorize. A
// key in the file that is refused comes back with its name and the reason in Refused, and
// false.
func Lookup(path string, key gossh.PublicKey) (Analyst, bool, error) {
	a, err := Authorize(path, key, nil, time.Now())
	var r *Refusal
	switch {
	case err == nil:
		return a, true, nil
	case errors.Is(err, ErrUnknownKey):
		return Analyst{}, false, nil
	case errors.As(err, &r):
		return Analyst{Name: r.Analyst, Fingerprint: r.Fingerprint, Type: key.Type(), Refused: r.Reason, key: key}, false, nil
	}
	return Analyst{}, false, err
}

// ParseKey reads one public key in authorized_keys form (what an id_ed25519.pub holds).
func ParseKey(text []byte) (gossh.PublicKey, string, error) {
	key, comment, _, _, err := gossh.ParseAuthorizedKey(bytes.TrimSpace(text))
	if err != nil {
		return nil, "", fmt.Errorf("not an SSH public key (%v): give the .pub file, e.g. ~/.ssh/id_ed25519.pub", err)
	}
	return key, comment, nil
}

// KeyOptions are the terms on which AddWithOptions lets a key in.
type KeyOptions struct {
	Admin   bool      // may answer, approve and cancel every analyst's jobs
	From    string    // from= patterns (see CheckFrom); empty: from anywhere
	Expires time.Time // refused after it; zero: never
}

// Add appends a key for the analyst name; admin marks it an admin key. A key that is already
// in the file is refused, whoever it names. The file is replaced atomically (mode 0600).
func Add(path, name string, key gossh.PublicKey, admin bool) (Analyst, error) {
	return AddWithOptions(path, name, key, KeyOptions{Admin: admin})
}

// AddWithOptions appends a key for the analyst name on the terms of opts, written as the
// options environment="WARREN_ROLE=admin", from= and expiry-time=. A key that is already in
// the file is refused, whoever it names. The file is replaced atomically (mode 0600).
func AddWithOptions(path, name string, key gossh.PublicKey, opts KeyOptions) (Analyst, error) {
	if err := CheckName(name); err != nil {
		return Analyst{}, err
	}
	var options []string
	if opts.Admin {
		options = append(options, "environment="+quote(adminEnv))
	}
	if opts.From != "" {
		if err := CheckFrom(opts.From); err != nil {
			return Analyst{}, err
		}
		options = append(options, "from="+quote(opts.From))
	}
	if !opts.Expires.IsZero() {
		options = append(options, "expiry-time="+quote(FormatExpiry(opts.Expires)))
	}
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key))) + " " + name
	if len(options) > 0 {
		line = strings.Join(options, ",") + " " + line
	}
	// Read back what is written, so that the file never gets a line that refuses its key.
	added, err := parseLine(line)
	if err != nil {
		return Analyst{}, err
	}
	if added.Refused != "" {
		return Analyst{}, fmt.Errorf("couldn't add %s: %s", name, added.Refused)
	}
	list, err := Load(path)
	if err != nil {
		return Analyst{}, err
	}
	for _, a := range list {
		if bytes.Equal(a.key.Marshal(), key.Marshal()) {
			return Analyst{}, fmt.Errorf("this key is already in %s for %s (line %d): remove it first with `warren users rm %s`", path, a.Name, a.line, a.Name)
		}
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Analyst{}, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	if err := atomicfile.WriteFile(path, append(old, line+"\n"...), 0o600); err != nil {
		return Analyst{}, fmt.Errorf("couldn't write %s: %w", path, err)
	}
	return added, nil
}

// Remove deletes every key of the analyst name and says how many there were; comments and
// other analysts' lines stay as they are.
func Remove(path, name string) (int, error) {
	list, err := Load(path)
	if err != nil {
		return 0, err
	}
	drop := map[int]bool{}
	for _, a := range list {
		if a.Name == name {
			drop[a.line] = true
		}
	}
	if len(drop) == 0 {
		return 0, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	var kept []string
	for i, line := range strings.SplitAfter(string(data), "\n") {
		if !drop[i+1] && line != "" {
			kept = append(kept, line)
		}
	}
	if err := atomicfile.WriteFile(path, []byte(strings.Join(kept, "")), 0o600); err != nil {
		return 0, fmt.Errorf("couldn't write %s: %w", path, err)
	}
	return len(drop), nil
}
