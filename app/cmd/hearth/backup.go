package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/modules/backup"
)

func backupCmd(configFile *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "backup",
		Short: "Create, verify and restore whole-server backups (database, repositories, blobs)",
	}

	var output string
	create := &cobra.Command{
		Use:   "create",
		Short: "Write a consistent backup of the running server to one archive",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == "" {
				output = "hearth-backup-" + time.Now().UTC().Format("20060102T150405Z") + ".tar"
			}
			return withBackup(*configFile, func(svc *backup.Service) error {
				// Written beside the target and renamed when complete, so
				// a failed run never leaves an archive that looks whole.
				tmp, err := os.CreateTemp(filepath.Dir(output), ".hearth-backup-*.partial")
				if err != nil {
					return err
				}
				defer os.Remove(tmp.Name())
				m, err := svc.Create(cmd.Context(), tmp, filepath.Dir(output), progress(cmd.ErrOrStderr()))
				if err == nil {
					err = tmp.Sync()
				}
				if cerr := tmp.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
				if err := os.Rename(tmp.Name(), output); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "backup written to %s (schema %s, %d tables, %d repositories, %d blobs)\n",
					output, m.SchemaVersion, len(m.Tables), len(m.Repositories), len(m.Blobs))
				return nil
			})
		},
	}
	create.Flags().StringVarP(&output, "output", "o", "", "archive to write (default hearth-backup-<time>.tar in the current directory)")

	verify := &cobra.Command{
		Use:   "verify FILE",
		Short: "Check an archive's manifest and every part's checksum without restoring",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withArchive(args[0], func(f *os.File, size int64) error {
				m, err := backup.Verify(cmd.Context(), f, size, progress(cmd.ErrOrStderr()))
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (Hearth %s, schema %s, %d parts)\n", args[0], m.HearthVersion, m.SchemaVersion, len(m.Parts)+2)
				return nil
			})
		},
	}

	var force bool
	restore := &cobra.Command{
		Use:   "restore FILE",
		Short: "Restore an archive into an empty database and data directory",
		Long: "Checks every checksum first, then brings the schema to the backup's version, imports\n" +
			"the rows, restores repositories and blobs, and migrates forward when the backup is older.\n" +
			"The target named by the configuration (storage.driver/dsn, data_dir) must be empty\n" +
			"unless --force is given.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withArchive(args[0], func(f *os.File, size int64) error {
				return withBackup(*configFile, func(svc *backup.Service) error {
					m, err := svc.Restore(cmd.Context(), f, size, force, progress(cmd.ErrOrStderr()))
					if err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "restored %s (schema %s, %d tables, %d repositories, %d blobs)\n",
						args[0], m.SchemaVersion, len(m.Tables), len(m.Repositories), len(m.Blobs))
					return nil
				})
			})
		},
	}
	restore.Flags().BoolVar(&force, "force", false, "replace the rows, repositories and blobs already in the target")

	cmd.AddCommand(create, verify, restore)
	return cmd
}

func withBackup(configFile string, fn func(*backup.Service) error) error {
	cfg, err := app.LoadConfig(configFile)
	if err != nil {
		return err
	}
	svc, closeFn, err := app.OpenBackup(cfg)
	if err != nil {
		return err
	}
	runErr := fn(svc)
	if err := closeFn(); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

func withArchive(path string, fn func(*os.File, int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	return fn(f, info.Size())
}

// progress reports on w: one line per step when w is not a terminal, a
// counter rewritten in place when it is.
func progress(w io.Writer) backup.Progress {
	f, ok := w.(*os.File)
	tty := false
	if ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	last := ""
	return func(step string, done, total int) {
		if tty {
			if total > 0 {
				fmt.Fprintf(w, "\r\033[K[%d/%d] %s", done, total, step)
			} else {
				fmt.Fprintf(w, "\r\033[K%s", step)
			}
			if total > 0 && done == total {
				fmt.Fprintln(w)
			}
			return
		}
		line := step
		if total > 0 {
			line = fmt.Sprintf("%s (%d/%d)", step, done, total)
		}
		if line != last {
			fmt.Fprintln(w, line)
			last = line
		}
	}
}
