package weaviatekb

import (
	"errors"
	"testing"
)

// Only the disagreement of replicas is asked again; any other failure is reported at once.
func TestOnlyDisagreeingReplicasAreAskedAgain(t *testing.T) {
	seen := errors.New(`rpc error: code = Unknown desc = inconsistent consistency levels: shard "x1" resolved to 1, shard "x2" resolved to 2`)
	if !replicasDisagree(seen) {
		t.Error("the error seen with a node down is not asked again")
	}
	for _, err := range []error{nil, errors.New("rpc error: code = Unavailable desc = connection refused"), errors.New("class WarrenChunks not found")} {
		if replicasDisagree(err) {
			t.Errorf("%v is asked again", err)
		}
	}
}
