// Package sshserver is Hearth's built-in SSH server, serving git the way
// gitlab-sshd does (`git clone ssh://git@host:2222/group/project.git`) over
// golang.org/x/crypto/ssh. It speaks the SSH protocol only: clients sign in
// by public key through ports.KeyAuthenticator, and what they run is
// ports.GitShell's business. Session channels carry one exec (or shell)
// each; forwarding, ptys, agents, X11 and subsystems are refused.
package sshserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/crypto/ssh"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

const (
	// maxChannelsPerConn bounds the session channels open at once on one
	// connection; git needs one.
	maxChannelsPerConn = 10
	// defaultAuthTimeout bounds one key look-up when no LoginTimeout is set.
	defaultAuthTimeout = 30 * time.Second
	serverVersion      = "SSH-2.0-Hearth"
)

// Options configures a Server.
type Options struct {
	// Listen is the address to accept on ("127.0.0.1:0" picks a port).
	Listen string
	// HostKeyDir holds the host keys, generated there on first start.
	HostKeyDir string
	// LoginTimeout bounds handshake and authentication; 0 is unbounded.
	LoginTimeout time.Duration
	// IdleTimeout closes a connection with no traffic either way this
	// long; 0 never does.
	IdleTimeout time.Duration
	// MaxSessionsPerIP caps the connections open at once from one remote
	// address; 0 is no cap.
	MaxSessionsPerIP int
	Auth             ports.KeyAuthenticator
	Shell            ports.GitShell
	Log              *zap.Logger
}

// Server is an SSH server for git. Create it with New, then Start it.
type Server struct {
	o        Options
	log      *zap.Logger
	hostKeys []ssh.Signer
	config   *ssh.ServerConfig

	// hardCtx is the parent of every session's context; cancelling it
	// (Shutdown out of time) stops whatever still runs.
	hardCtx    context.Context
	hardCancel context.CancelFunc

	// wg counts every goroutine the server starts, so Shutdown returns
	// only when all have ended.
	wg sync.WaitGroup

	mu       sync.Mutex
	ln       net.Listener
	draining bool
	conns    map[*conn]struct{}
	perIP    map[string]int
}

// conn is one accepted connection; active and the map entry are guarded by
// Server.mu.
type conn struct {
	nc     *idleConn
	ip     string
	active int // open session channels
}

// callerKey is the Permissions.ExtraData key of the authenticated caller.
type callerKey struct{}

// New loads the host keys from o.HostKeyDir, generating them on first
// use. It does not listen yet.
func New(o Options) (*Server, error) {
	if o.Auth == nil || o.Shell == nil {
		return nil, errors.New("sshserver: Auth and Shell are required")
	}
	keys, err := loadHostKeys(o.HostKeyDir)
	if err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = zap.NewNop()
	}
	s := &Server{
		o:        o,
		log:      log.Named("ssh"),
		hostKeys: keys,
		conns:    make(map[*conn]struct{}),
		perIP:    make(map[string]int),
	}
	s.hardCtx, s.hardCancel = context.WithCancel(context.Background())
	s.config = &ssh.ServerConfig{
		// No password, keyboard-interactive or "none": public keys only.
		PublicKeyCallback: s.authenticate,
		ServerVersion:     serverVersion,
	}
	for _, k := range keys {
		s.config.AddHostKey(k)
	}
	return s, nil
}

// HostKeys returns the server's public host keys (for known_hosts).
func (s *Server) HostKeys() []ssh.PublicKey {
	out := make([]ssh.PublicKey, len(s.hostKeys))
	for i, k := range s.hostKeys {
		out[i] = k.PublicKey()
	}
	return out
}

// Start listens on Options.Listen and serves in the background.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.draining:
		return errors.New("sshserver: server shut down")
	case s.ln != nil:
		return errors.New("sshserver: already started")
	case s.o.Listen == "":
		return errors.New("sshserver: no listen address")
	}
	ln, err := net.Listen("tcp", s.o.Listen)
	if err != nil {
		return fmt.Errorf("sshserver: listen %s: %w", s.o.Listen, err)
	}
	s.ln = ln
	s.log.Info("ssh server listening", zap.Stringer("addr", ln.Addr()))
	s.wg.Add(1)
	go s.acceptLoop(ln)
	return nil
}

// Addr is the address the server listens on, nil before Start.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Shutdown stops accepting at once and closes connections with no session
// open. Sessions running (a push in progress) may finish until ctx is
// done; then the remaining connections are closed and the sessions'
// contexts cancelled. It returns once every goroutine of the server has
// ended (so it waits for GitShell.Run calls to return, which they do
// promptly once their context is cancelled): nil when all finished in
// time, ctx's error otherwise.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	if s.ln != nil {
		_ = s.ln.Close()
	}
	for c := range s.conns {
		if c.active == 0 {
			_ = c.nc.Close()
		}
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.hardCancel()
		return nil
	case <-ctx.Done():
	}
	s.hardCancel()
	s.mu.Lock()
	n := len(s.conns)
	for c := range s.conns {
		_ = c.nc.Close()
	}
	s.mu.Unlock()
	s.log.Warn("ssh shutdown: closing sessions still running", zap.Int("connections", n))
	<-done
	return ctx.Err()
}

func (s *Server) acceptLoop(ln net.Listener) {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait and retry, as
			// net/http does, rather than spinning or giving up.
			if backoff == 0 {
				backoff = 5 * time.Millisecond
			} else if backoff *= 2; backoff > time.Second {
				backoff = time.Second
			}
			s.log.Error("ssh accept", zap.Error(err), zap.Duration("retry_in", backoff))
			select {
			case <-time.After(backoff):
			case <-s.hardCtx.Done():
				return
			}
			continue
		}
		backoff = 0
		s.admit(nc)
	}
}

// admit registers nc and serves it, or closes it at once when its address
// has MaxSessionsPerIP connections open already or the server is draining.
func (s *Server) admit(nc net.Conn) {
	remote := nc.RemoteAddr().String()
	ip := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		ip = h
	}
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		_ = nc.Close()
		return
	}
	if max := s.o.MaxSessionsPerIP; max > 0 && s.perIP[ip] >= max {
		s.mu.Unlock()
		_ = nc.Close()
		s.log.Warn("ssh connection refused: too many connections from this address",
			zap.String("remote", remote), zap.Int("max_sessions_per_ip", max))
		return
	}
	c := &conn{ip: ip}
	c.nc = newIdleConn(nc, s.o.IdleTimeout, func() {
		s.log.Info("ssh connection idle, closing", zap.String("remote", remote),
			zap.Duration("idle_timeout", s.o.IdleTimeout))
	})
	s.perIP[ip]++
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go s.serveConn(c)
}

func (s *Server) release(c *conn) {
	_ = c.nc.Close()
	s.mu.Lock()
	delete(s.conns, c)
	if s.perIP[c.ip]--; s.perIP[c.ip] <= 0 {
		delete(s.perIP, c.ip)
	}
	s.mu.Unlock()
}

// authenticate is the PublicKeyCallback. It asks Auth on every attempt of
// every connection, never caching, so a deleted key is refused at once;
// the caller rides to the connection in Permissions.ExtraData.
func (s *Server) authenticate(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
	timeout := s.o.LoginTimeout
	if timeout <= 0 {
		timeout = defaultAuthTimeout
	}
	ctx, cancel := context.WithTimeout(s.hardCtx, timeout)
	defer cancel()
	fp := ssh.FingerprintSHA256(key)
	caller, err := s.o.Auth.PublicKey(ctx, key.Marshal())
	if err == nil && caller == nil {
		err = errors.New("no caller for the key")
	}
	if err != nil {
		// An unknown key is routine (clients offer every key they have);
		// anything else means the store failed and an admin should know.
		level := zap.InfoLevel
		if !errors.Is(err, core.ErrUnauthenticated) {
			level = zap.ErrorLevel
		}
		s.log.Log(level, "ssh key refused", zap.String("remote", meta.RemoteAddr().String()),
			zap.String("login", meta.User()), zap.String("key_type", key.Type()),
			zap.String("fingerprint", fp), zap.Error(err))
		return nil, fmt.Errorf("sshserver: key refused: %w", err)
	}
	return &ssh.Permissions{
		Extensions: map[string]string{"key-type": key.Type(), "fingerprint": fp},
		ExtraData:  map[any]any{callerKey{}: caller},
	}, nil
}

func (s *Server) serveConn(c *conn) {
	defer s.wg.Done()
	defer s.release(c)
	remote := c.nc.RemoteAddr().String()
	start := time.Now()
	log := s.log.With(zap.String("remote", remote))
	log.Info("ssh connection accepted")
	defer func() {
		if p := recover(); p != nil {
			log.Error("ssh connection panicked", zap.Any("panic", p), zap.Stack("stack"))
		}
		log.Info("ssh connection closed", zap.Duration("duration", time.Since(start)))
	}()

	if s.o.LoginTimeout > 0 {
		_ = c.nc.SetDeadline(time.Now().Add(s.o.LoginTimeout))
	}
	sc, chans, reqs, err := ssh.NewServerConn(c.nc, s.config)
	if err != nil {
		log.Info("ssh handshake failed", zap.Error(err))
		return
	}
	_ = c.nc.SetDeadline(time.Time{})

	caller, _ := sc.Permissions.ExtraData[callerKey{}].(*domain.Caller)
	log = log.With(zap.String("login", sc.User()))
	log = log.With(callerFields(caller)...)
	log.Info("ssh authenticated",
		zap.String("key_type", sc.Permissions.Extensions["key-type"]),
		zap.String("fingerprint", sc.Permissions.Extensions["fingerprint"]))

	// Deferred calls run last first: on the way out the sessions'
	// context is cancelled and the connection closed (it may still be
	// open after a panic) before waiting for the sessions to end.
	var sessions sync.WaitGroup
	defer sessions.Wait()
	defer sc.Close()
	ctx, cancel := context.WithCancel(s.hardCtx)
	defer cancel()

	sessions.Add(1)
	go func() {
		defer sessions.Done()
		for r := range reqs {
			// tcpip-forward, keepalive@openssh.com ...: nothing is
			// offered at connection level.
			if r.WantReply {
				_ = r.Reply(false, nil)
			}
		}
	}()

	for nch := range chans {
		if t := nch.ChannelType(); t != "session" {
			log.Info("ssh channel refused", zap.String("type", t))
			_ = nch.Reject(ssh.Prohibited, "only session channels are allowed")
			continue
		}
		s.mu.Lock()
		switch {
		case s.draining:
			s.mu.Unlock()
			_ = nch.Reject(ssh.ResourceShortage, "server is shutting down")
			continue
		case c.active >= maxChannelsPerConn:
			s.mu.Unlock()
			_ = nch.Reject(ssh.ResourceShortage, "too many sessions on this connection")
			continue
		}
		c.active++
		s.mu.Unlock()
		ch, chReqs, err := nch.Accept()
		if err != nil {
			s.sessionEnded(c)
			log.Info("ssh channel accept", zap.Error(err))
			continue
		}
		sessions.Add(1)
		go func() {
			defer sessions.Done()
			defer s.sessionEnded(c)
			s.serveSession(ctx, log, caller, ch, chReqs)
		}()
	}
}

// sessionEnded counts a session channel out; a draining server closes the
// connection once its last session is done.
func (s *Server) sessionEnded(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.active--
	if s.draining && c.active == 0 {
		_ = c.nc.Close()
	}
}

// callerFields describes who signed in, never the key material.
func callerFields(c *domain.Caller) []zap.Field {
	switch {
	case c == nil:
		return nil
	case c.User != nil:
		return []zap.Field{zap.Int64("user_id", c.User.ID), zap.String("username", c.User.Username)}
	case c.DeployKey != nil:
		return []zap.Field{zap.Int64("deploy_key_id", c.DeployKey.Key.ID)}
	}
	return nil
}
