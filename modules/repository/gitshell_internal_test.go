package repository

import "testing"

// TestParseGitCommand: git's three services with one project path, as
// git quotes it; everything else is refused before any lookup.
func TestParseGitCommand(t *testing.T) {
	ok := []struct{ cmd, service, path string }{
		{"git-upload-pack 'group/project.git'", uploadPack, "group/project"},
		{"git-upload-pack '/group/project.git'", uploadPack, "group/project"},
		{"git-receive-pack 'group/sub/project'", receivePack, "group/sub/project"},
		{"git upload-pack 'group/project.git'", uploadPack, "group/project"},
		{"git-upload-archive 'group/project.git'", uploadArchive, "group/project"},
		{"git-upload-pack group/project.git", uploadPack, "group/project"},
		{`git-upload-pack 'group/it'\''s.git'`, uploadPack, "group/it's"},
		{"git-upload-pack 'group/project.git/'", uploadPack, "group/project"},
	}
	for _, c := range ok {
		service, path, err := parseGitCommand(c.cmd)
		if err != nil || service != c.service || path != c.path {
			t.Errorf("parseGitCommand(%q) = %q, %q, %v; want %q, %q", c.cmd, service, path, err, c.service, c.path)
		}
	}
	for _, cmd := range []string{
		"", "sh", "git-upload-pack", "git-upload-pack ", "git-shell 'a/b'", "git upload-pack", "git-lfs-authenticate 'a/b' download",
		"git-upload-pack 'a/b' 'c/d'", "git-upload-pack 'a/b'x", "git-upload-pack 'a/b", `git-upload-pack "a/b"`,
		"git-upload-pack a/b;id", "git-upload-pack $(id)/b", "git-upload-pack 'a/b' --upload-pack=x",
		"git-upload-pack '--help'", "git-upload-pack '-u/x'", "git-upload-pack 'a/-x'", "git-upload-pack 'a/../b'",
		"git-upload-pack '../a/b'", "git-upload-pack 'a/./b'", "git-upload-pack 'a//b'", "git-upload-pack 'project'",
		"git-upload-pack '~root/b'", "git-upload-pack 'a/b\\c'", "git-upload-pack 'a/b\x00c'", "git-upload-pack 'a/b\nc'",
		"git-upload-pack '/etc/passwd'",
	} {
		if service, path, err := parseGitCommand(cmd); err == nil && !(service == uploadPack && path == "etc/passwd") {
			t.Errorf("parseGitCommand(%q) = %q, %q: want a refusal", cmd, service, path)
		}
	}
}
