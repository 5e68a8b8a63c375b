// Package access keeps the analysts who may connect to `warren serve`: an OpenSSH
// authorized_keys file in which each key's comment names its analyst. An admin key carries the
// option environment="WARREN_ROLE=admin". The file is read on every connection, so adding or
// removing an analyst takes effect without a restart.
package access

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"warren/internal/atomicfile"
)

// adminOption marks an admin's key in the file.
const adminOption = `environment="WARREN_ROLE=admin"`

// Analyst is one key's owner.
type Analyst struct {
	Name        string `json:"name"`
	Admin       bool   `json:"admin"`
	Type        string `json:"type"`        // key type, e.g. ssh-ed25519
	Fingerprint string `json:"fingerprint"` // SHA256 fingerprint, as ssh-keygen -l shows it
	key         gossh.PublicKey
	line        int
}

// Key is the analyst's public key.
func (a Analyst) Key() gossh.PublicKey { return a.key }

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
// never silently locks an analyst out or lets a nameless key in.
func Load(path string) ([]Analyst, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
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
		key, comment, options, _, err := gossh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("%s line %d: not an SSH public key (%v); fix or remove the line", path, n, err)
		}
		name := strings.TrimSpace(comment)
		if err := CheckName(name); err != nil {
			return nil, fmt.Errorf("%s line %d: the key's comment names its analyst: %w", path, n, err)
		}
		a := Analyst{Name: name, Type: key.Type(), Fingerprint: gossh.FingerprintSHA256(key), key: key, line: n}
		for _, o := range options {
			if o == adminOption {
				a.Admin = true
			}
		}
		out = append(out, a)
	}
	return out, sc.Err()
}

// Lookup finds the analyst whose key this is.
func Lookup(path string, key gossh.PublicKey) (Analyst, bool, error) {
	list, err := Load(path)
	if err != nil {
		return Analyst{}, false, err
	}
	want := key.Marshal()
	for _, a := range list {
		if bytes.Equal(a.key.Marshal(), want) {
			return a, true, nil
		}
	}
	return Analyst{}, false, nil
}

// ParseKey reads one public key in authorized_keys form (what an id_ed25519.pub holds).
func ParseKey(text []byte) (gossh.PublicKey, string, error) {
	key, comment, _, _, err := gossh.ParseAuthorizedKey(bytes.TrimSpace(text))
	if err != nil {
		return nil, "", fmt.Errorf("not an SSH public key (%v): give the .pub file, e.g. ~/.ssh/id_ed25519.pub", err)
	}
	return key, comment, nil
}

// Add appends a key for the analyst name; admin marks it an admin key. A key that is already
// in the file is refused, whoever it names. The file is replaced atomically (mode 0600).
func Add(path, name string, key gossh.PublicKey, admin bool) (Analyst, error) {
	if err := CheckName(name); err != nil {
		return Analyst{}, err
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
		return Analyst{}, err
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key))) + " " + name + "\n"
	if admin {
		line = adminOption + " " + line
	}
	if err := atomicfile.WriteFile(path, append(old, line...), 0o600); err != nil {
		return Analyst{}, fmt.Errorf("couldn't write %s: %w", path, err)
	}
	return Analyst{Name: name, Admin: admin, Type: key.Type(), Fingerprint: gossh.FingerprintSHA256(key), key: key}, nil
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
		return 0, err
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
