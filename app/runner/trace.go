package runner

import (
	"bytes"
	"sort"
	"sync"
)

const masked = "[MASKED]"

// masker replaces secrets in a stream with [MASKED]. It holds back the
// end of the stream while it could be the start of a secret, so a secret
// split across two writes is still caught.
type masker struct {
	secrets [][]byte // longest first, so the longest match wins
	first   [256]bool
	pending []byte
}

func newMasker(secrets []string) *masker {
	m := &masker{}
	seen := map[string]bool{}
	for _, s := range secrets {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		m.secrets = append(m.secrets, []byte(s))
		m.first[s[0]] = true
	}
	sort.Slice(m.secrets, func(i, j int) bool { return len(m.secrets[i]) > len(m.secrets[j]) })
	return m
}

// write returns the masked bytes of pending+p that can be emitted now.
func (m *masker) write(p []byte) []byte {
	if len(m.secrets) == 0 {
		return append([]byte(nil), p...)
	}
	buf := append(m.pending, p...)
	out := make([]byte, 0, len(buf))
	i := 0
scan:
	for i < len(buf) {
		if !m.first[buf[i]] {
			// Most bytes start no secret: copy them in one go.
			j := i + 1
			for j < len(buf) && !m.first[buf[j]] {
				j++
			}
			out = append(out, buf[i:j]...)
			i = j
			continue
		}
		rest := buf[i:]
		for _, s := range m.secrets {
			if len(rest) < len(s) && bytes.HasPrefix(s, rest) {
				// The rest may be the start of a (longer) secret: wait.
				m.pending = append([]byte(nil), rest...)
				return out
			}
		}
		for _, s := range m.secrets {
			if bytes.HasPrefix(rest, s) {
				out = append(out, masked...)
				i += len(s)
				continue scan
			}
		}
		out = append(out, buf[i])
		i++
	}
	m.pending = nil
	return out
}

// flush emits what was held back: the stream ended before a secret did.
func (m *masker) flush() []byte {
	out := m.pending
	m.pending = nil
	return out
}

// maxTrace caps a job's trace held in memory; past it the output is
// dropped with a notice (gitlab-runner's output_limit).
const maxTrace = 32 << 20

// trace is a job's output: masked, appended only, read by the sender.
type trace struct {
	mu        sync.Mutex
	m         *masker
	data      []byte
	truncated bool
	closed    bool
}

func newTrace(secrets []string) *trace { return &trace{m: newMasker(secrets)} }

// Write masks p and appends it. It never fails, so that a job's output
// never blocks on the trace.
func (t *trace) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return len(p), nil
	}
	t.append(t.m.write(p))
	return len(p), nil
}

func (t *trace) append(b []byte) {
	if t.truncated {
		return
	}
	if len(t.data)+len(b) > maxTrace {
		t.truncated = true
		t.data = append(t.data, "\nJob's log exceeded limit of 32 MiB: the rest of the output is dropped.\n"...)
		return
	}
	t.data = append(t.data, b...)
}

// close flushes the masker; later writes are dropped.
func (t *trace) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closed {
		t.append(t.m.flush())
		t.closed = true
	}
}

// bytes is the trace so far. Bytes are only ever appended, so the slice
// stays valid without a copy.
func (t *trace) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.data[:len(t.data):len(t.data)]
}
