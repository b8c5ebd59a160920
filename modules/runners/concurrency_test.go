package runners_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// TestConcurrentHandOut: runners polling at once get every pending job
// exactly once.
func TestConcurrentHandOut(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid, _ := s.project("queue")
		reg := s.regToken(pid)
		var specs []jobSpec
		for i := range 40 {
			specs = append(specs, jobSpec{name: fmt.Sprintf("j%02d", i)})
		}
		s.pipeline(pid, specs...)
		var tokens []string
		for range 8 {
			_, tok := s.runner(reg, nil)
			tokens = append(tokens, tok)
		}
		var mu sync.Mutex
		got := map[int64]int{}
		var wg sync.WaitGroup
		for _, tok := range tokens {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body, _ := json.Marshal(map[string]any{"token": tok})
				for {
					resp, err := http.Post(s.API()+"/jobs/request", "application/json", bytes.NewReader(body))
					if err != nil {
						t.Error(err)
						return
					}
					data, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode == 204 {
						return
					}
					if resp.StatusCode != 201 {
						t.Errorf("request: %d %s", resp.StatusCode, data)
						return
					}
					var job struct{ ID int64 }
					_ = json.Unmarshal(data, &job)
					mu.Lock()
					got[job.ID]++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(got) != 40 {
			t.Fatalf("handed out %d distinct jobs, want 40", len(got))
		}
		for id, n := range got {
			if n != 1 {
				t.Fatalf("job %d handed out %d times", id, n)
			}
		}
	})
}
