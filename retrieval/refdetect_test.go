package retrieval

import (
	"context"
	"testing"
)

const passage = "Die Pflichten nach § 6 GefStoffV gelten auch für Anlagen im Sinne der Seveso-III-Richtlinie."

func TestDetectRejectsUnknownDetector(t *testing.T) {
	if _, err := Detect(context.Background(), "psychic", nil, passage); err == nil {
		t.Error("an unknown detector must be refused")
	}
}
