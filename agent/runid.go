package agent

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewRunID makes a run ID that sorts by time: prefix, UTC time to the second, and a random
// suffix that keeps IDs made in the same second apart.
func NewRunID(prefix string) string {
	var b [3]byte
	rand.Read(b[:])
	return prefix + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
