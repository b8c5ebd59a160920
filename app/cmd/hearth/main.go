// Command hearth runs the Hearth server and its administrative tasks.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "hearth:", err)
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	var configFile string
	root := &cobra.Command{
		Use:           "hearth",
		Short:         "Hearth: a self-hostable code host with a GitLab v4 API",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&configFile, "config", "", "configuration file (YAML), read after configs/hearth.yaml")
	root.AddCommand(serveCmd(&configFile), migrateCmd(&configFile), adminCmd(&configFile),
		backupCmd(&configFile), doctorCmd(&configFile), runnerCmd())
	return root
}
