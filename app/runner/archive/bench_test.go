package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
)

func benchTree(b *testing.B) string {
	files := map[string]string{}
	for i := 0; i < 500; i++ {
		files[fmt.Sprintf("d%d/f%d.txt", i%20, i)] = fmt.Sprintf("content of file %d\n", i)
	}
	root := b.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		mustWrite(b, p, content)
	}
	return root
}

// BenchmarkCreate zips 500 small files: one flate compressor is reused
// for all of them.
func BenchmarkCreate(b *testing.B) {
	root := benchTree(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Create(context.Background(), io.Discard, root, []string{"**/*.txt"}, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtract(b *testing.B) {
	root := benchTree(b)
	var buf bytes.Buffer
	if _, err := Create(context.Background(), &buf, root, []string{"**"}, nil, false); err != nil {
		b.Fatal(err)
	}
	dest := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if err := Extract(bytes.NewReader(buf.Bytes()), int64(buf.Len()), dest); err != nil {
			b.Fatal(err)
		}
	}
}
