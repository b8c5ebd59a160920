package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/app/runner"
)

// runnerCmd is `hearth runner`: the built-in runner, which talks to any
// server of the runner protocol (Hearth or GitLab) over HTTP only.
func runnerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runner",
		Short: "Run CI jobs with the built-in shell runner (register, verify, unregister, run)",
		Long: "The built-in runner speaks the public runner protocol, like gitlab-runner with the shell\n" +
			"executor. Its configuration (YAML, mode 0600, holding the runner token) is written by\n" +
			"`hearth runner register` and read by the other commands.",
	}
	// Shadows the server's --config: this one is the runner's file.
	configFile := cmd.PersistentFlags().String("config", "runner.yml", "runner configuration file (YAML)")
	cmd.AddCommand(runnerRegisterCmd(configFile), runnerVerifyCmd(configFile),
		runnerUnregisterCmd(configFile), runnerRunCmd(configFile))
	return cmd
}

func ctxOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

func runnerRegisterCmd(configFile *string) *cobra.Command {
	var url, regToken, tags, description, buildsDir, cacheDir string
	var runUntagged, locked bool
	var concurrent int
	cmd := &cobra.Command{
		Use:   "register",
		Short: "Register a runner with a registration token and write its configuration file",
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Overwriting would lose the token of a runner that stays
			// registered on the server.
			if _, err := os.Stat(*configFile); err == nil {
				return fmt.Errorf("%s exists: unregister that runner first, or use another --config", *configFile)
			}
			c := runner.Config{
				URL: strings.TrimRight(url, "/"), Description: description, RunUntagged: runUntagged,
				SystemID: runner.NewSystemID(), Concurrent: concurrent, BuildsDir: buildsDir, CacheDir: cacheDir,
				ShutdownTimeout: runner.DefaultShutdownTimeout,
			}
			for _, t := range strings.Split(tags, ",") {
				if t = strings.TrimSpace(t); t != "" {
					c.Tags = append(c.Tags, t)
				}
			}
			if len(c.Tags) == 0 {
				c.RunUntagged = true // a runner without tags that runs nothing is useless
			}
			if c.Description == "" {
				host, _ := os.Hostname()
				c.Description = "hearth-runner on " + host
			}
			cl := &runner.Client{URL: c.URL, SystemID: c.SystemID}
			id, token, err := cl.Register(ctxOf(cmd), regToken, runner.RegisterOptions{
				Description: c.Description, Tags: c.Tags, RunUntagged: c.RunUntagged, Locked: locked,
			})
			if err != nil {
				return fmt.Errorf("register: %w", err)
			}
			c.ID, c.Token = id, token
			if err := c.Save(*configFile); err != nil {
				// The runner exists but its token is lost: remove it.
				_ = cl.Unregister(context.Background(), token)
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Runner %d registered; configuration saved in %s\n", id, *configFile)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "the server's URL, e.g. http://localhost:8080 (required)")
	f.StringVar(&regToken, "registration-token", "", "a project's runners_token or the instance registration token (required)")
	f.StringVar(&tags, "tag-list", "", "comma-separated tags")
	f.BoolVar(&runUntagged, "run-untagged", false, "also run jobs without tags (always on when there are no tags)")
	f.BoolVar(&locked, "locked", false, "lock the runner to its project")
	f.StringVar(&description, "description", "", "the runner's description")
	f.IntVar(&concurrent, "concurrent", runner.DefaultConcurrent, "jobs run at once")
	f.StringVar(&buildsDir, "builds-dir", runner.DefaultBuildsDir, "where jobs check out their projects")
	f.StringVar(&cacheDir, "cache-dir", runner.DefaultCacheDir, "where caches are kept")
	_ = cmd.MarkFlagRequired("url")
	_ = cmd.MarkFlagRequired("registration-token")
	return cmd
}

func runnerVerifyCmd(configFile *string) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check that the configured runner token is valid",
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := runner.LoadConfig(*configFile)
			if err != nil {
				return err
			}
			cl := &runner.Client{URL: c.URL, SystemID: c.SystemID}
			id, err := cl.Verify(ctxOf(cmd), c.Token)
			if err != nil {
				if errors.Is(err, runner.ErrForbidden) {
					return fmt.Errorf("the runner token of %s is not valid (unregistered or removed)", *configFile)
				}
				return fmt.Errorf("verify: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Runner %d is valid\n", id)
			return nil
		},
	}
}

func runnerUnregisterCmd(configFile *string) *cobra.Command {
	return &cobra.Command{
		Use:   "unregister",
		Short: "Delete the configured runner on the server and its configuration file",
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := runner.LoadConfig(*configFile)
			if err != nil {
				return err
			}
			cl := &runner.Client{URL: c.URL, SystemID: c.SystemID}
			if err := cl.Unregister(ctxOf(cmd), c.Token); err != nil && !errors.Is(err, runner.ErrForbidden) {
				return fmt.Errorf("unregister: %w", err)
			}
			if err := os.Remove(*configFile); err != nil {
				return fmt.Errorf("remove %s: %w", *configFile, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Runner %d unregistered; %s removed\n", c.ID, *configFile)
			return nil
		},
	}
}

func runnerRunCmd(configFile *string) *cobra.Command {
	var concurrent int
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Poll for jobs and run them (SIGTERM/SIGINT: stop taking jobs and wait; a second SIGINT cancels them)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := runner.LoadConfig(*configFile)
			if err != nil {
				return err
			}
			if concurrent > 0 {
				c.Concurrent = concurrent
			}
			zc := zap.NewProductionConfig()
			zc.DisableStacktrace = true
			log, err := zc.Build()
			if err != nil {
				return err
			}
			defer func() { _ = log.Sync() }()
			r := &runner.Runner{Config: c, Log: log.Named("runner")}

			ctx, stop := context.WithCancel(ctxOf(cmd))
			defer stop()
			sigs := make(chan os.Signal, 2)
			signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
			finished := make(chan struct{})
			defer close(finished)
			defer signal.Stop(sigs)
			go func() {
				first := true
				for {
					var sig os.Signal
					select {
					case <-finished:
						return
					case sig = <-sigs:
					}
					if first {
						first = false
						log.Info("stopping: no new jobs, waiting for the running ones",
							zap.String("signal", sig.String()), zap.Duration("shutdown_timeout", c.ShutdownTimeout))
						stop()
						continue
					}
					if sig == syscall.SIGINT {
						log.Info("second interrupt: canceling the running jobs")
						r.Abort()
					}
				}
			}()
			return r.Run(ctx)
		},
	}
	cmd.Flags().IntVar(&concurrent, "concurrent", 0, "jobs run at once (default: the configuration's concurrent, else 1)")
	return cmd
}
