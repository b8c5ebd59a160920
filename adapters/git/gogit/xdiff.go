package gogit

import (
	"bytes"
	"fmt"
	"strings"
)

// A line diff in git's way (xdiff): a minimal Myers edit script, then
// xdl_change_compact with the indent heuristic (git's default since
// 2.14), then hunks with 3 lines of context and git's default funcname.

// splitLines cuts data into lines, each with its "\n" (the last may lack it).
func splitLines(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:i+1])
		data = data[i+1:]
	}
	return lines
}

// isBinary is git's buffer_is_binary: a NUL in the first 8000 bytes.
func isBinary(data []byte) bool {
	if len(data) > 8000 {
		data = data[:8000]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// xfile is one side of a diff: its lines and which of them changed
// (rchg has a sentinel slot before and after, as in xdiff).
type xfile struct {
	recs [][]byte
	ids  []int
	rchg []bool // rchg[i+1] is line i
}

func (f *xfile) changed(i int) bool { return f.rchg[i+1] }
func (f *xfile) set(i int, v bool)  { f.rchg[i+1] = v }

// diffLines marks the changed lines of a and b.
func diffLines(a, b [][]byte) (*xfile, *xfile) {
	ids := map[string]int{}
	intern := func(lines [][]byte) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[string(l)]
			if !ok {
				id = len(ids)
				ids[string(l)] = id
			}
			out[i] = id
		}
		return out
	}
	fa := &xfile{recs: a, ids: intern(a), rchg: make([]bool, len(a)+2)}
	fb := &xfile{recs: b, ids: intern(b), rchg: make([]bool, len(b)+2)}
	myers(fa, fb)
	compact(fa, fb)
	compact(fb, fa)
	return fa, fb
}

// myers marks a minimal edit script between fa and fb.
func myers(fa, fb *xfile) {
	x, y := fa.ids, fb.ids
	lo := 0
	for lo < len(x) && lo < len(y) && x[lo] == y[lo] {
		lo++
	}
	hiA, hiB := len(x), len(y)
	for hiA > lo && hiB > lo && x[hiA-1] == y[hiB-1] {
		hiA--
		hiB--
	}
	x, y = x[lo:hiA], y[lo:hiB]
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		for i := 0; i < n; i++ {
			fa.set(lo+i, true)
		}
		for j := 0; j < m; j++ {
			fb.set(lo+j, true)
		}
		return
	}
	max := n + m
	off := max
	v := make([]int, 2*max+2)
	var trace [][]int
	var d int
outer:
	for d = 0; d <= max; d++ {
		snap := make([]int, 2*d+1)
		copy(snap, v[off-d:off+d+1])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var xi int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				xi = v[off+k+1]
			} else {
				xi = v[off+k-1] + 1
			}
			yi := xi - k
			for xi < n && yi < m && x[xi] == y[yi] {
				xi++
				yi++
			}
			v[off+k] = xi
			if xi >= n && yi >= m {
				break outer
			}
		}
	}
	// Backtrack: trace[d] holds v of step d-1 for k in [-d, d].
	xi := n
	yi := m
	for ; d > 0; d-- {
		prev := trace[d]
		vk := func(kk int) int { return prev[kk+d] }
		k := xi - yi
		pk := k - 1
		if k == -d || (k != d && vk(k-1) < vk(k+1)) {
			pk = k + 1
		}
		px := vk(pk)
		py := px - pk
		if pk == k+1 {
			fb.set(lo+py, true)
		} else {
			fa.set(lo+px, true)
		}
		xi, yi = px, py
	}
}

// group is a run [start, end) of changed lines of one side.
type group struct{ start, end int }

func (f *xfile) nrec() int { return len(f.recs) }

func (f *xfile) groupInit() group {
	g := group{}
	for f.changed(g.end) {
		g.end++
	}
	return g
}

func (f *xfile) groupNext(g *group) bool {
	if g.end == f.nrec() {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for f.changed(g.end) {
		g.end++
	}
	return true
}

func (f *xfile) groupPrevious(g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for f.changed(g.start - 1) {
		g.start--
	}
	return true
}

func (f *xfile) slideDown(g *group) bool {
	if g.end < f.nrec() && f.ids[g.start] == f.ids[g.end] {
		f.set(g.start, false)
		g.start++
		f.set(g.end, true)
		g.end++
		for f.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

func (f *xfile) slideUp(g *group) bool {
	if g.start > 0 && f.ids[g.start-1] == f.ids[g.end-1] {
		g.start--
		f.set(g.start, true)
		g.end--
		f.set(g.end, false)
		for f.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

const indentMaxSliding = 100

// compact is xdl_change_compact with XDF_INDENT_HEURISTIC.
func compact(f, o *xfile) {
	g, go_ := f.groupInit(), o.groupInit()
	for {
		if g.end != g.start {
			var groupsize, earliestEnd, endMatchingOther int
			for {
				groupsize = g.end - g.start
				endMatchingOther = -1
				for f.slideUp(&g) {
					o.groupPrevious(&go_)
				}
				earliestEnd = g.end
				if go_.end > go_.start {
					endMatchingOther = g.end
				}
				for f.slideDown(&g) {
					o.groupNext(&go_)
					if go_.end > go_.start {
						endMatchingOther = g.end
					}
				}
				if groupsize == g.end-g.start {
					break
				}
			}
			switch {
			case g.end == earliestEnd:
			case endMatchingOther != -1:
				for go_.end == go_.start {
					f.slideUp(&g)
					o.groupPrevious(&go_)
				}
			default:
				shift := earliestEnd
				if g.end-groupsize-1 > shift {
					shift = g.end - groupsize - 1
				}
				if g.end-indentMaxSliding > shift {
					shift = g.end - indentMaxSliding
				}
				bestShift := -1
				var best splitScore
				for ; shift <= g.end; shift++ {
					var s splitScore
					s.add(f.measure(shift))
					s.add(f.measure(shift - groupsize))
					if bestShift == -1 || s.cmp(best) <= 0 {
						best = s
						bestShift = shift
					}
				}
				for g.end > bestShift {
					f.slideUp(&g)
					o.groupPrevious(&go_)
				}
			}
		}
		if !f.groupNext(&g) {
			break
		}
		o.groupNext(&go_)
	}
}

const (
	maxIndent = 200
	maxBlanks = 20
)

func getIndent(rec []byte) int {
	ret := 0
	for _, c := range rec {
		switch c {
		case ' ':
			ret++
		case '\t':
			ret += 8 - ret%8
		case '\n', '\r', '\v', '\f':
		default:
			return ret
		}
		if ret >= maxIndent {
			return maxIndent
		}
	}
	return -1
}

type splitMeasurement struct {
	endOfFile                   bool
	indent, preBlank, preIndent int
	postBlank, postIndent       int
}

func (f *xfile) measure(split int) splitMeasurement {
	var m splitMeasurement
	if split >= f.nrec() {
		m.endOfFile = true
		m.indent = -1
	} else {
		m.indent = getIndent(f.recs[split])
	}
	m.preIndent = -1
	for i := split - 1; i >= 0; i-- {
		m.preIndent = getIndent(f.recs[i])
		if m.preIndent != -1 {
			break
		}
		m.preBlank++
		if m.preBlank == maxBlanks {
			m.preIndent = 0
			break
		}
	}
	m.postIndent = -1
	for i := split + 1; i < f.nrec(); i++ {
		m.postIndent = getIndent(f.recs[i])
		if m.postIndent != -1 {
			break
		}
		m.postBlank++
		if m.postBlank == maxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

type splitScore struct{ effectiveIndent, penalty int }

func (s *splitScore) add(m splitMeasurement) {
	if m.preIndent == -1 && m.preBlank == 0 {
		s.penalty += 1
	}
	if m.endOfFile {
		s.penalty += 21
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	s.penalty += -30 * totalBlank
	s.penalty += 6 * postBlank
	indent := m.indent
	if indent == -1 {
		indent = m.postIndent
	}
	anyBlanks := totalBlank != 0
	s.effectiveIndent += indent
	pick := func(withBlank, without int) int {
		if anyBlanks {
			return withBlank
		}
		return without
	}
	switch {
	case indent == -1, m.preIndent == -1:
	case indent > m.preIndent:
		s.penalty += pick(10, -4)
	case indent == m.preIndent:
	default:
		if m.postIndent != -1 && m.postIndent > indent {
			s.penalty += pick(17, 24)
		} else {
			s.penalty += pick(17, 23)
		}
	}
}

func (s splitScore) cmp(o splitScore) int {
	c := 0
	if s.effectiveIndent > o.effectiveIndent {
		c = 1
	} else if s.effectiveIndent < o.effectiveIndent {
		c = -1
	}
	return 60*c + (s.penalty - o.penalty)
}

// funcName is git's default funcname for a hunk starting at old line
// start: the nearest line above starting with a letter, "_" or "$",
// trailing whitespace removed, at most 80 bytes.
func funcName(recs [][]byte, start int) string {
	for i := start - 1; i >= 0; i-- {
		l := recs[i]
		if len(l) == 0 {
			continue
		}
		c := l[0]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' {
			if len(l) > 80 {
				l = l[:80]
			}
			return strings.TrimRight(string(l), " \t\r\n\v\f")
		}
	}
	return ""
}

// unified renders the hunks of a diff between a and b as git prints them
// from the first "@@" on, with numstat counts.
func unified(a, b []byte) (string, int, int) {
	ra, rb := splitLines(a), splitLines(b)
	fa, fb := diffLines(ra, rb)
	// Change records: aligned runs of changed lines.
	type change struct{ i1, chg1, i2, chg2 int }
	var changes []change
	adds, dels := 0, 0
	i, j := 0, 0
	for i < len(ra) || j < len(rb) {
		if (i < len(ra) && fa.changed(i)) || (j < len(rb) && fb.changed(j)) {
			c := change{i1: i, i2: j}
			for i < len(ra) && fa.changed(i) {
				i++
			}
			for j < len(rb) && fb.changed(j) {
				j++
			}
			c.chg1, c.chg2 = i-c.i1, j-c.i2
			adds += c.chg2
			dels += c.chg1
			changes = append(changes, c)
			continue
		}
		i++
		j++
	}
	const ctx = 3
	var out strings.Builder
	line := func(prefix byte, l []byte) {
		out.WriteByte(prefix)
		out.Write(l)
		if len(l) == 0 || l[len(l)-1] != '\n' {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for k := 0; k < len(changes); {
		// A hunk takes every following change closer than 2*ctx lines.
		e := k
		for e+1 < len(changes) && changes[e+1].i1-(changes[e].i1+changes[e].chg1) <= 2*ctx {
			e++
		}
		first, last := changes[k], changes[e]
		s1 := max(first.i1-ctx, 0)
		s2 := max(first.i2-ctx, 0)
		e1 := min(last.i1+last.chg1+ctx, len(ra))
		e2 := min(last.i2+last.chg2+ctx, len(rb))
		fmt.Fprintf(&out, "@@ -%s +%s @@", hunkRange(s1, e1-s1), hunkRange(s2, e2-s2))
		if fn := funcName(ra, s1); fn != "" {
			out.WriteString(" " + fn)
		}
		out.WriteByte('\n')
		x, y := s1, s2
		for c := k; c <= e; c++ {
			ch := changes[c]
			for x < ch.i1 {
				line(' ', ra[x])
				x++
				y++
			}
			for ; x < ch.i1+ch.chg1; x++ {
				line('-', ra[x])
			}
			for ; y < ch.i2+ch.chg2; y++ {
				line('+', rb[y])
			}
		}
		for x < e1 {
			line(' ', ra[x])
			x++
		}
		k = e + 1
	}
	return out.String(), adds, dels
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	default:
		return fmt.Sprintf("%d,%d", start+1, n)
	}
}
