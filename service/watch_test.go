package service

import (
	"context"
	"testing"
	"time"

	"warren/service/jobs"
)

func TestLiveResearchLandsInTheRunThatEndedWhileAway(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	alice := s.As("alice", false)
	done := func(ctx context.Context, em *jobs.Emitter) (string, error) { return jobs.JobDone, nil }
	if _, err := s.jobs.Start(ctx, "before", jobs.KindResearch, "alice", "an old run", done); err != nil {
		t.Fatal(err)
	}
	s.jobs.Wait(ctx, "before")
	time.Sleep(10 * time.Millisecond)
	left := time.Now()
	if _, _, err := alice.Research().Live(ctx, left); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := alice.Research().Live(ctx, left); ok {
		t.Fatal("a run that ended before she left was landed in")
	}
	if _, err := s.jobs.Start(ctx, "while-away", jobs.KindResearch, "alice", "her run", done); err != nil {
		t.Fatal(err)
	}
	s.jobs.Wait(ctx, "while-away")
	if j, ok, _ := alice.Research().Live(ctx, left); !ok || j.ID != "while-away" {
		t.Fatalf("the run that ended while she was away: %+v %v", j, ok)
	}
	if _, ok, _ := s.As("bob", false).Research().Live(ctx, left); ok {
		t.Fatal("bob lands in alice's run")
	}
	if _, ok, _ := alice.Research().Live(ctx, time.Time{}); ok {
		t.Fatal("with no last visit known, an ended run was landed in")
	}
}
