package gas

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"warren/internal/delimiter"
)

// ImportCSV reads a gas table from a CSV file separated by commas, semicolons (as spreadsheets
// in German and other decimal-comma locales write them) or tabs, in UTF-8 with or without a
// byte-order mark. The first non-empty line is the header row; see ImportXLSX for the rest.
func ImportCSV(path string) (*Table, error) {
	t, _, err := ImportCSVWithReport(path)
	return t, err
}

// ImportCSVWithReport is ImportCSV with the report of what the import noticed (see
// ImportReport): unmatched headers, invalid values, values awaiting review.
func ImportCSVWithReport(path string) (*Table, *ImportReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:firstInvalidUTF8(data)], []byte("\n"))
		return nil, nil, fmt.Errorf("%s isn't UTF-8 text (line %d); save it as \"CSV UTF-8\"", path, line)
	}
	// A workbook can't hold control characters (XML forbids them): an export would change them
	// to U+FFFD. A text file has none.
	if i := bytes.IndexFunc(data, notXMLChar); i >= 0 {
		line := 1 + bytes.Count(data[:i], []byte("\n"))
		return nil, nil, fmt.Errorf("%s holds a control character (line %d), so it isn't a text file", path, line)
	}
	// A stray quote inside a field (12" cylinder) is common and harmless, so it is tolerated;
	// an unterminated quoted field would swallow the rest of the file, so it is an error.
	comma := delimiter.Sniff(data)
	grid, err := readCSV(data, comma, false)
	if errors.Is(err, csv.ErrBareQuote) {
		grid, err = readCSV(data, comma, true)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't read %s as CSV: %w", path, err)
	}
	st, err := tableFromGrid(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), path, grid, nil)
	if err != nil {
		return nil, nil, err
	}
	return st.Table, st.finishReport(), nil
}

func readCSV(data []byte, comma rune, lazy bool) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.LazyQuotes = lazy
	return r.ReadAll()
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// notXMLChar reports the characters of valid UTF-8 that XML 1.0 cannot hold.
func notXMLChar(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF
}
