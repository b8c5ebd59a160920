package gogit

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/dsnet/compress/bzip2"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
)

// Archive writes the tree of rev as git archive does: a pax header with
// the commit id, every directory and file in tree order, modes with git's
// default tar.umask (002), mtimes at the committer date.
func (b *Backend) Archive(ctx context.Context, repo, rev, format, prefix string, w io.Writer) error {
	r, err := b.open(repo)
	if err != nil {
		return err
	}
	if prefix, err = check.Archive(format, prefix); err != nil {
		return err
	}
	if err := gitnames.CheckRev(rev); err != nil {
		return err
	}
	c, err := r.resolveCommit(rev)
	if err != nil {
		return fmt.Errorf("gogit: archive of %s: %w", repo, err)
	}
	mtime := time.Unix(c.Committer.When.Unix(), 0)
	type item struct {
		path string
		mode string
		data []byte
	}
	var items []item
	if prefix != "" {
		items = append(items, item{path: prefix, mode: "40000"})
	}
	var walk func(tree, dir string) error
	walk = func(tree, dir string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := gitobject.ReadTree(r, tree)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := dir + e.Name
			switch {
			case e.IsDir():
				items = append(items, item{path: p + "/", mode: "40000"})
				if err := walk(e.ID, p+"/"); err != nil {
					return err
				}
			case e.Mode == "160000":
				items = append(items, item{path: p + "/", mode: "40000"})
			default:
				o, err := r.ReadObject(e.ID)
				if err != nil {
					return err
				}
				items = append(items, item{path: p, mode: e.Mode, data: o.Data})
			}
		}
		return nil
	}
	if err := walk(c.TreeID, prefix); err != nil {
		return fmt.Errorf("gogit: archive of %s: %w", repo, err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if format == "zip" {
		zw := zip.NewWriter(bw)
		zw.SetComment(c.ID)
		for _, it := range items {
			h := &zip.FileHeader{Name: it.path, Method: zip.Deflate, Modified: mtime}
			switch it.mode {
			case "40000":
				h.Method = zip.Store
				h.SetMode(0o755 | 1<<31)
			case "100755":
				h.SetMode(0o755)
			case "120000":
				h.SetMode(0o777 | 1<<27)
			default:
				h.SetMode(0o644)
			}
			fw, err := zw.CreateHeader(h)
			if err != nil {
				return fmt.Errorf("gogit: archive of %s: %w", repo, err)
			}
			if _, err := fw.Write(it.data); err != nil {
				return fmt.Errorf("gogit: archive of %s: %w", repo, err)
			}
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("gogit: archive of %s: %w", repo, err)
		}
		return bw.Flush()
	}
	var out io.Writer = bw
	var zw io.WriteCloser // the compressor, nil for plain tar
	switch format {
	case "tar.gz":
		zw, _ = gzip.NewWriterLevel(bw, gzip.DefaultCompression)
	case "tar.bz2":
		if zw, err = bzip2.NewWriter(bw, &bzip2.WriterConfig{Level: bzip2.DefaultCompression}); err != nil {
			return fmt.Errorf("gogit: archive of %s: %w", repo, err)
		}
	}
	if zw != nil {
		out = zw
	}
	tw := tar.NewWriter(out)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header",
		PAXRecords: map[string]string{"comment": c.ID}}); err != nil {
		return fmt.Errorf("gogit: archive of %s: %w", repo, err)
	}
	for _, it := range items {
		h := &tar.Header{Name: it.path, ModTime: mtime, Uname: "root", Gname: "root"}
		switch it.mode {
		case "40000":
			h.Typeflag, h.Mode = tar.TypeDir, 0o775
		case "120000":
			h.Typeflag, h.Mode, h.Linkname = tar.TypeSymlink, 0o777, string(it.data)
		case "100755":
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o775, int64(len(it.data))
		default:
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o664, int64(len(it.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("gogit: archive of %s: %w", repo, err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(it.data); err != nil {
				return fmt.Errorf("gogit: archive of %s: %w", repo, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("gogit: archive of %s: %w", repo, err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return fmt.Errorf("gogit: archive of %s: %w", repo, err)
		}
	}
	return bw.Flush()
}
