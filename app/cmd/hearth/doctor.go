package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/modules/doctor"
)

func doctorCmd(configFile *string) *cobra.Command {
	var opt doctor.Options
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that the database, the repositories and the blob store agree",
		Long: "Checks the database schema, every project's repository (present, passes git fsck),\n" +
			"the branches the database relies on (open merge requests' source and target\n" +
			"branches, default branches, protected branches), and the blob files of artifacts\n" +
			"and archived traces. Prints one line per problem with its fix, then a summary.\n" +
			"Exits non-zero while errors remain (warnings alone exit 0).\n\n" +
			"--repair applies the fixes that lose nothing: pending migrations are applied, a\n" +
			"missing repository is created empty (its history is lost unless a backup is\n" +
			"restored over it), a missing merge request branch is recreated at the commit the\n" +
			"merge request recorded, and an artifact record whose file is gone is deleted.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			out := cmd.OutOrStdout()
			cfg, err := app.LoadConfig(*configFile)
			if err != nil {
				return err
			}
			// Starting the app migrates, so the schema is checked first.
			st, err := app.SchemaStatus(ctx, cfg)
			if err != nil {
				return err
			}
			if schema := doctor.SchemaProblems(st); len(st.Unknown) > 0 || (len(st.Pending) > 0 && !opt.Repair) {
				for _, p := range schema {
					fmt.Fprintln(out, p)
				}
				fmt.Fprintln(out, "nothing else was checked: the other checks need the schema this binary expects")
				return fmt.Errorf("doctor: the database schema needs attention")
			}
			rep, err := runDoctor(ctx, cfg, opt)
			if err != nil {
				return err
			}
			if len(st.Pending) > 0 {
				// Starting applied them.
				rep.Problems = append([]doctor.Problem{{Severity: doctor.Error,
					What:     doctor.SchemaProblems(st)[0].What,
					Repaired: "applied the pending migrations"}}, rep.Problems...)
			}
			if err := rep.Write(out); err != nil {
				return err
			}
			if errs, _ := rep.Remaining(); errs > 0 {
				return fmt.Errorf("doctor: %d error(s) remain", errs)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opt.Repair, "repair", false, "apply the fixes that lose nothing (see above)")
	cmd.Flags().DurationVar(&opt.FsckTimeout, "fsck-timeout", doctor.DefaultFsckTimeout, "how long the check of one repository may take")
	return cmd
}

// runDoctor starts Core with the doctor alone (which applies pending
// migrations), runs it and stops.
func runDoctor(ctx context.Context, cfg config.Config, opt doctor.Options) (*doctor.Report, error) {
	var svc *doctor.Service
	a := fx.New(app.Core(cfg), app.Doctor(), fx.Populate(&svc))
	if err := a.Err(); err != nil {
		return nil, err
	}
	if err := a.Start(ctx); err != nil {
		return nil, err
	}
	rep, runErr := svc.Run(ctx, opt)
	if err := a.Stop(context.Background()); err != nil && runErr == nil {
		runErr = err
	}
	return rep, runErr
}
