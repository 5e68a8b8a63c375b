package service

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"warren/agent/gasfill"
	"warren/agent/research"
	"warren/agent/toxedit"
	"warren/gas"
)

// StepWords says what a step of a job does, in the analyst's words ("writing search queries"
// for the node generate_queries): the one place that names the agents' nodes for every front
// end. A name no agent knows is spelled with spaces for underscores.
func StepWords(node string) string {
	for _, words := range []func(string) (string, bool){research.StepWords, gasfill.StepWords, toxedit.StepWords} {
		if w, ok := words(node); ok {
			return w
		}
	}
	return strings.ReplaceAll(node, "_", " ")
}

// ToxEditTypeWords says what kind of toxicology edit a proposal or version is ("instruction in
// words" for NLI_EDIT).
func ToxEditTypeWords(t string) string { return toxedit.EditTypeWords(t) }

// ToxMethodWords says how a toxicology proposal's operations were made ("read without the
// model" for parsed).
func ToxMethodWords(m string) string { return toxedit.MethodWords(m) }

// GasMethodWords says how a gas cell's value was found or set ("found in suppliers" for a
// fill's tier:suppliers).
func GasMethodWords(method string) string {
	if w, ok := gasfill.MethodWords(method); ok {
		return w
	}
	switch method {
	case gas.MethodSheet:
		return "from the sheet"
	case gasMethodAnalyst:
		return "typed by the analyst"
	case "extract":
		return "read from a document"
	}
	return method
}

// IngestProgressWords says how far an ingest has come in words both front ends show: "12 of
// 1,000 files · 85 files/s · about 12s left". The rate and the time left are left out while
// the ingest has not measured them (0), rather than shown as 0; with every file done, the words
// say it is saving.
func IngestProgressWords(done, total int, rate float64, remaining time.Duration) string {
	files := "files"
	if total == 1 {
		files = "file"
	}
	parts := []string{fmt.Sprintf("%s of %s %s", Count(done), Count(total), files)}
	if total > 0 && done >= total {
		// What is left is saving (a store's index is built at its end), which no rate of files
		// measures.
		return parts[0] + " · saving…"
	}
	if r := RateWords(rate); r != "" {
		parts = append(parts, r+" files/s")
	}
	if left := TimeLeftWords(remaining); left != "" {
		parts = append(parts, left)
	}
	return strings.Join(parts, " · ")
}

// RateWords is a rate per second with the precision a person plans with: whole numbers from
// 10 (1,042), one decimal from 1, two significant digits below; "" for none.
func RateWords(rate float64) string {
	switch {
	case rate <= 0:
		return ""
	case rate >= 9.95:
		return Count(int(math.Round(rate)))
	case rate >= 1:
		return strconv.FormatFloat(rate, 'f', 1, 64)
	}
	return strconv.FormatFloat(rate, 'g', 2, 64)
}

// TimeLeftWords says an estimate of the time left ("about 2m10s left"), rounded to what an
// estimate is worth: seconds under a minute (by 5 from 10 s), then minutes and tens of
// seconds, then hours and minutes; "" for none (0: not known).
func TimeLeftWords(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	step := time.Minute
	switch {
	case d < 10*time.Second:
		step = time.Second
	case d < time.Minute:
		step = 5 * time.Second
	case d < time.Hour:
		step = 10 * time.Second
	}
	// Rounded first, so that 59.8 s is "1m", not "60s".
	d = max(d.Round(step), time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var w string
	switch {
	case h > 0 && m > 0:
		w = fmt.Sprintf("%dh%dm", h, m)
	case h > 0:
		w = fmt.Sprintf("%dh", h)
	case m > 0 && s > 0:
		w = fmt.Sprintf("%dm%ds", m, s)
	case m > 0:
		w = fmt.Sprintf("%dm", m)
	default:
		w = fmt.Sprintf("%ds", s)
	}
	return "about " + w + " left"
}

// Count writes n with thousands separated by commas (1,000), as counts a person reads at a
// glance.
func Count(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}
