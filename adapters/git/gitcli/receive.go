package gitcli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hearth-forge/hearth/adapters/git/gitinput"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

var _ ports.CheckedReceiver = (*Backend)(nil)

// hooksDir holds the backend's own pre-receive hook, used only by
// ReceivePack (through -c core.hooksPath); the leading dot keeps it out of
// the repository name space.
const hooksDir = ".hooks"

// preReceive runs between the arrival of a push's objects (in quarantine)
// and the moving of its refs. It tells the backend every update through
// the FIFO $HEARTH_PUSH_REQ ("<old> <new> <ff> <ref>" lines, then "end";
// ff is computed here, where the quarantined objects are visible) and
// waits for the verdict on $HEARTH_PUSH_RESP: "ok", or "reject <message>".
const preReceive = `#!/bin/sh
[ -n "$HEARTH_PUSH_REQ" ] || exit 0
zero=0000000000000000000000000000000000000000
{
	while read -r old new ref; do
		ff=0
		if [ "$new" != "$zero" ]; then
			if [ "$old" = "$zero" ]; then
				ff=1
			elif git merge-base --is-ancestor "$old" "$new" 2>/dev/null; then
				ff=1
			fi
		fi
		echo "$old $new $ff $ref"
	done
	echo end
} > "$HEARTH_PUSH_REQ"
read -r verdict < "$HEARTH_PUSH_RESP"
[ "$verdict" = ok ] && exit 0
printf '%s\n' "${verdict#reject }" >&2
exit 1
`

// installHooks writes the pre-receive hook under root.
func installHooks(root string) (string, error) {
	dir := filepath.Join(root, hooksDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, ".pre-receive.tmp")
	if err := os.WriteFile(tmp, []byte(preReceive), 0o700); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "pre-receive")); err != nil {
		return "", err
	}
	return dir, nil
}

// ReceivePack runs one stateless git-receive-pack request, calling check
// with every ref update once the pushed objects are stored in quarantine
// and before any ref moves. A check error rejects the whole push; its
// message reaches the client (as "remote: ..." lines). While check runs the
// pushed objects are only in git's quarantine directory: the backend's
// own reads do not see them yet (RefUpdate.FastForward is computed inside
// the quarantine). The push holds a process slot (see Limits) while check
// runs: a check that needs git of its own waits for another slot, and with
// all of them held by pushes it fails after the queue timeout rather than
// deadlocking.
func (b *Backend) ReceivePack(ctx context.Context, repo, protocol string, in io.Reader, w io.Writer, check ports.PushCheck) error {
	_, o, err := b.transport(repo, "git-receive-pack", protocol)
	if err != nil {
		return err
	}
	gitDir, env := o.dir, o.env
	if check == nil {
		return b.ServeRPC(ctx, repo, "git-receive-pack", protocol, in, w)
	}
	dir, err := os.MkdirTemp("", "hearth-push-")
	if err != nil {
		return fmt.Errorf("gitcli: receive-pack: %w", err)
	}
	defer os.RemoveAll(dir)
	reqPath, respPath := filepath.Join(dir, "req"), filepath.Join(dir, "resp")
	for _, p := range []string{reqPath, respPath} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			return fmt.Errorf("gitcli: receive-pack: %w", err)
		}
	}
	// Both ends are opened read-write, so neither open blocks and the
	// verdict stays in the pipe until the hook reads it.
	req, err := os.OpenFile(reqPath, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("gitcli: receive-pack: %w", err)
	}
	defer req.Close()
	resp, err := os.OpenFile(respPath, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("gitcli: receive-pack: %w", err)
	}
	defer resp.Close()

	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(req)
		var updates []domain.RefUpdate
		for sc.Scan() {
			line := sc.Text()
			if line == "end" {
				verdict := "ok"
				if err := check(ctx, updates); err != nil {
					verdict = "reject " + gitinput.Refusal(err)
				}
				_, _ = io.WriteString(resp, verdict+"\n")
				updates = nil
				continue
			}
			f := strings.SplitN(line, " ", 4)
			if len(f) != 4 {
				continue
			}
			updates = append(updates, domain.RefUpdate{Ref: f[3], OldID: f[0], NewID: f[1], FastForward: f[2] == "1"})
		}
	}()

	env = append(env, "HEARTH_PUSH_REQ="+reqPath, "HEARTH_PUSH_RESP="+respPath)
	_, err = b.runOpts(ctx, runOpts{dir: gitDir, env: env, stdin: in, stdout: w},
		"-c", "core.hooksPath="+b.hooks, "receive-pack", "--stateless-rpc", gitDir)
	_ = req.Close() // ends the reader
	<-done
	if err != nil {
		return fmt.Errorf("gitcli: git-receive-pack on %s: %w", repo, err)
	}
	return nil
}
