package sshserver

import (
	"context"
	"io"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/crypto/ssh"

	"github.com/hearth-forge/hearth/core/domain"
)

const (
	// maxCommandLen bounds an exec command; git's are a few dozen bytes.
	maxCommandLen = 4 << 10
	// maxProtocolLen bounds GIT_PROTOCOL ("version=2" and a few more).
	maxProtocolLen = 256
	// disallowedMsg is worded as the git shell words it (gitlab-shell's form).
	disallowedMsg = "GitLab: Disallowed command\n"
)

// serveSession answers one session channel's requests: GIT_PROTOCOL in
// env, then one exec or shell. It returns when the channel is closed,
// after the command it started has ended.
func (s *Server) serveSession(ctx context.Context, log *zap.Logger, caller *domain.Caller, ch ssh.Channel, reqs <-chan *ssh.Request) {
	ctx, cancel := context.WithCancel(ctx)
	var (
		protocol string
		started  bool
		done     chan struct{}
	)
	defer func() {
		// The client closed the channel (or the connection went away):
		// stop the command and wait for it before counting the session
		// out.
		cancel()
		if done != nil {
			<-done
		}
		_ = ch.Close()
	}()
	defer func() {
		if p := recover(); p != nil {
			log.Error("ssh session panicked", zap.Any("panic", p), zap.Stack("stack"))
		}
	}()

	for req := range reqs {
		ok := false
		switch req.Type {
		case "env":
			var kv struct{ Name, Value string }
			if !started && ssh.Unmarshal(req.Payload, &kv) == nil &&
				kv.Name == "GIT_PROTOCOL" && validProtocol(kv.Value) {
				protocol, ok = kv.Value, true
			}
		case "exec":
			var p struct{ Command string }
			if !started && ssh.Unmarshal(req.Payload, &p) == nil {
				started = true
				done = make(chan struct{})
				_ = req.Reply(true, nil)
				go s.exec(ctx, log, caller, ch, p.Command, protocol, done)
				continue
			}
		case "shell":
			if !started {
				started = true
				done = make(chan struct{})
				_ = req.Reply(true, nil)
				go s.welcome(log, caller, ch, done)
				continue
			}
		default:
			// pty-req, x11-req, auth-agent-req@openssh.com, subsystem
			// (sftp), window-change, signal ...: git needs none of them.
			log.Debug("ssh session request refused", zap.String("type", req.Type))
		}
		if req.WantReply {
			_ = req.Reply(ok, nil)
		}
	}
}

// exec runs command through the shell, then reports its exit status and
// closes the channel.
func (s *Server) exec(ctx context.Context, log *zap.Logger, caller *domain.Caller, ch ssh.Channel, command, protocol string, done chan<- struct{}) {
	defer close(done)
	start := time.Now()
	status := 1
	defer func() {
		if p := recover(); p != nil {
			log.Error("ssh command panicked", zap.String("command", command),
				zap.Any("panic", p), zap.Stack("stack"))
			status = 1
		}
		finish(ch, status)
		log.Info("ssh command", zap.String("command", logCommand(command)),
			zap.String("git_protocol", protocol), zap.Int("status", status),
			zap.Duration("duration", time.Since(start)))
	}()
	if !validCommand(command) {
		_, _ = io.WriteString(ch.Stderr(), disallowedMsg)
		return
	}
	status = s.o.Shell.Run(ctx, caller, command, protocol, ch, ch, ch.Stderr())
}

// welcome answers `ssh git@host` with no command.
func (s *Server) welcome(log *zap.Logger, caller *domain.Caller, ch ssh.Channel, done chan<- struct{}) {
	defer close(done)
	status := 0
	defer func() {
		if p := recover(); p != nil {
			log.Error("ssh welcome panicked", zap.Any("panic", p), zap.Stack("stack"))
			status = 1
		}
		finish(ch, status)
		log.Info("ssh shell", zap.Int("status", status))
	}()
	_, _ = io.WriteString(ch, s.o.Shell.Welcome(caller))
}

// finish sends the exit status, then EOF, then closes the channel: the
// order OpenSSH's sshd uses, so the client has the status before the
// channel goes.
func finish(ch ssh.Channel, status int) {
	if status < 0 || status > 255 {
		status = 1
	}
	_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(status)}))
	_ = ch.CloseWrite()
	_ = ch.Close()
}

// validCommand refuses what no git client sends: an empty or oversized
// command, or one carrying NUL or line breaks that could smuggle a second
// line into a log or a shell.
func validCommand(c string) bool {
	return strings.TrimSpace(c) != "" && len(c) <= maxCommandLen && !strings.ContainsAny(c, "\x00\n\r")
}

// validProtocol accepts GIT_PROTOCOL values of printable ASCII only.
func validProtocol(v string) bool {
	if len(v) > maxProtocolLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

// logCommand keeps a refused command's log line short.
func logCommand(c string) string {
	const max = 200
	if len(c) > max {
		return c[:max] + "..."
	}
	return c
}
