package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/modules/runners"
	"github.com/hearth-forge/hearth/modules/users"
)

func serveCmd(configFile *string) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Migrate the database, create root on first start, and serve the API",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := app.LoadConfig(*configFile)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			a := app.New(cfg, app.Bootstrap(func(password string) {
				fmt.Fprintf(out, "\nCreated the administrator 'root' with the password:\n\n    %s\n\nIt is shown only this once. Sign in with POST /api/v4/session.\n\n", password)
			}))
			if err := a.Err(); err != nil {
				return err
			}
			// Run handles SIGINT and SIGTERM and stops gracefully.
			a.Run()
			return nil
		},
	}
}

func migrateCmd(configFile *string) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply database migrations and exit (nothing else starts)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := app.LoadConfig(*configFile)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if err := app.Migrate(ctx, cfg); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "migrations applied")
			return nil
		},
	}
}

func adminCmd(configFile *string) *cobra.Command {
	admin := &cobra.Command{Use: "admin", Short: "Administrative tasks"}

	var in users.CreateUserInput
	var isAdmin bool
	create := &cobra.Command{
		Use:   "create-user",
		Short: "Create a user",
		RunE: func(cmd *cobra.Command, _ []string) error {
			in.Admin = &isAdmin
			return withApp(cmd.Context(), *configFile, func(svc *users.Service) error {
				u, err := svc.CreateUser(cmd.Context(), nil, in)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "created user %s (id %d)\n", u.Username, u.ID)
				return nil
			})
		},
	}
	create.Flags().StringVar(&in.Username, "username", "", "username (required)")
	create.Flags().StringVar(&in.Email, "email", "", "email (required)")
	create.Flags().StringVar(&in.Name, "name", "", "full name (defaults to the username)")
	create.Flags().StringVar(&in.Password, "password", "", "password (at least 8 characters)")
	create.Flags().BoolVar(&isAdmin, "admin", false, "make the user an administrator")
	_ = create.MarkFlagRequired("username")
	_ = create.MarkFlagRequired("email")
	_ = create.MarkFlagRequired("password")

	var login, name, scopes, expires string
	token := &cobra.Command{
		Use:   "create-token",
		Short: "Create a personal access token and print it",
		RunE: func(cmd *cobra.Command, _ []string) error {
			var expiresAt *time.Time
			if expires != "" {
				t, err := httpx.ParseTime(expires)
				if err != nil {
					return fmt.Errorf("--expires-at: want YYYY-MM-DD")
				}
				expiresAt = &t
			}
			return withApp(cmd.Context(), *configFile, func(svc *users.Service) error {
				u, err := svc.UserByLogin(cmd.Context(), login)
				if err != nil {
					return fmt.Errorf("user %q: %w", login, err)
				}
				_, secret, err := svc.CreatePersonalToken(cmd.Context(), nil, u.ID, name, strings.Split(scopes, ","), expiresAt)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), secret)
				return nil
			})
		},
	}
	token.Flags().StringVar(&login, "user", "root", "username or email of the token's owner")
	token.Flags().StringVar(&name, "name", "cli", "token name")
	token.Flags().StringVar(&scopes, "scopes", "api", "comma-separated scopes (api, read_user, sudo)")
	token.Flags().StringVar(&expires, "expires-at", "", "expiry date YYYY-MM-DD (none by default)")

	var project string
	runnersToken := &cobra.Command{
		Use:   "runners-token",
		Short: "Reset a project's runner registration token and print it",
		Long: "Only the digest of a registration token is stored, so resetting is the only way to\n" +
			"see one. Runners registered with the old token keep working.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withService(cmd.Context(), *configFile, func(svc *runners.Service) error {
				secret, err := svc.ResetProjectToken(cmd.Context(), project)
				if err != nil {
					return fmt.Errorf("project %q: %w", project, err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), secret)
				return nil
			})
		},
	}
	runnersToken.Flags().StringVar(&project, "project", "", "the project's full path or numeric ID (required)")
	_ = runnersToken.MarkFlagRequired("project")

	admin.AddCommand(create, token, runnersToken)
	return admin
}

// withApp starts Hearth without a listener (which migrates the database),
// runs fn with the users service and stops.
func withApp(ctx context.Context, configFile string, fn func(*users.Service) error) error {
	return withService(ctx, configFile, fn)
}

// withService is withApp for any service the app provides.
func withService[S any](ctx context.Context, configFile string, fn func(S) error) error {
	cfg, err := app.LoadConfig(configFile)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var svc S
	a := fx.New(app.Core(cfg), app.Modules(), fx.Populate(&svc))
	if err := a.Err(); err != nil {
		return err
	}
	if err := a.Start(ctx); err != nil {
		return err
	}
	runErr := fn(svc)
	if err := a.Stop(context.Background()); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}
