package service

import (
	"testing"
	"time"
)

// An estimate is said with the precision it has: seconds under a minute, then minutes and
// tens of seconds, then hours and minutes; unknown is said not at all.
func TestTimeLeftWordsRoundAsAnEstimateIs(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, ""},
		{-time.Second, ""},
		{300 * time.Millisecond, "about 1s left"},
		{7*time.Second + 400*time.Millisecond, "about 7s left"},
		{12 * time.Second, "about 10s left"},
		{43 * time.Second, "about 45s left"},
		{59*time.Second + 800*time.Millisecond, "about 1m left"},
		{2*time.Minute + 8*time.Second, "about 2m10s left"},
		{34*time.Minute + 21*time.Second, "about 34m20s left"},
		{59*time.Minute + 58*time.Second, "about 1h left"},
		{time.Hour + 4*time.Minute + 40*time.Second, "about 1h5m left"},
		{26 * time.Hour, "about 26h left"},
	} {
		if got := TimeLeftWords(tc.d); got != tc.want {
			t.Errorf("TimeLeftWords(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestRateWordsAndCounts(t *testing.T) {
	for rate, want := range map[float64]string{0: "", -1: "", 0.25: "0.25", 0.033: "0.033", 2.54: "2.5", 9.97: "10", 85.4: "85", 1234.5: "1,235"} {
		if got := RateWords(rate); got != want {
			t.Errorf("RateWords(%v) = %q, want %q", rate, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// The rate and the time left show once measured; before, the words say the files alone.
func TestIngestProgressWords(t *testing.T) {
	if got, want := IngestProgressWords(12, 1000, 85, 12*time.Second), "12 of 1,000 files · 85 files/s · about 10s left"; got != want {
		t.Errorf("measured: %q, want %q", got, want)
	}
	if got, want := IngestProgressWords(0, 1, 0, 0), "0 of 1 file"; got != want {
		t.Errorf("not measured yet: %q, want %q", got, want)
	}
	if got, want := IngestProgressWords(3000, 3000, 52, time.Second), "3,000 of 3,000 files · saving…"; got != want {
		t.Errorf("every file done: %q, want %q", got, want)
	}
}
