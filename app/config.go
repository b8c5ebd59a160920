package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/structs"
	"github.com/knadh/koanf/v2"

	"github.com/hearth-forge/hearth/core/config"
)

// DefaultConfigFile is read when present, before --config and the environment.
const DefaultConfigFile = "configs/hearth.yaml"

// envKeys maps the documented HEARTH_* variables to configuration keys.
// Other variables use HEARTH_SECTION__KEY for section.key.
var envKeys = map[string]string{
	"HEARTH_LISTEN":           "listen",
	"HEARTH_EXTERNAL_URL":     "external_url",
	"HEARTH_DATA_DIR":         "data_dir",
	"HEARTH_STORAGE_DRIVER":   "storage.driver",
	"HEARTH_STORAGE_DSN":      "storage.dsn",
	"HEARTH_GIT_BACKEND":      "git.backend",
	"HEARTH_GIT_ROOT":         "git.root",
	"HEARTH_ROOT_PASSWORD":    "root.password",
	"HEARTH_ROOT_EMAIL":       "root.email",
	"HEARTH_LOG_LEVEL":        "log.level",
	"HEARTH_LOG_FORMAT":       "log.format",
	"HEARTH_MAX_BODY_BYTES":   "http.max_body_bytes",
	"HEARTH_SHUTDOWN_TIMEOUT": "shutdown_timeout",
}

// envLists are the keys whose HEARTH_* value is a comma-separated list.
var envLists = map[string]bool{"metrics.allowed_cidrs": true}

// LoadConfig layers the built-in defaults, configs/hearth.yaml (when it
// exists), the file named by path (when not empty) and HEARTH_* variables,
// then validates the result.
func LoadConfig(path string) (config.Config, error) {
	k := koanf.New(".")
	if err := k.Load(structs.Provider(config.Default(), "koanf"), nil); err != nil {
		return config.Config{}, fmt.Errorf("load defaults: %w", err)
	}
	if _, err := os.Stat(DefaultConfigFile); err == nil {
		if err := k.Load(file.Provider(DefaultConfigFile), yaml.Parser()); err != nil {
			return config.Config{}, fmt.Errorf("load %s: %w", DefaultConfigFile, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return config.Config{}, fmt.Errorf("stat %s: %w", DefaultConfigFile, err)
	}
	if path != "" {
		if err := k.Load(file.Provider(path), yaml.Parser()); err != nil {
			return config.Config{}, fmt.Errorf("load %s: %w", path, err)
		}
	}
	explicitURL := k.String("external_url") != config.Default().ExternalURL
	err := k.Load(env.Provider(".", env.Opt{
		Prefix: "HEARTH_",
		TransformFunc: func(key, value string) (string, any) {
			if name, ok := envKeys[key]; ok {
				if name == "external_url" {
					explicitURL = true
				}
				return name, value
			}
			name := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(key, "HEARTH_")), "__", ".")
			if envLists[name] {
				var list []string
				for _, v := range strings.Split(value, ",") {
					if v = strings.TrimSpace(v); v != "" {
						list = append(list, v)
					}
				}
				return name, list
			}
			return name, value
		},
	}), nil)
	if err != nil {
		return config.Config{}, fmt.Errorf("load environment: %w", err)
	}
	var cfg config.Config
	if err := k.UnmarshalWithConf("", &cfg, koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		return config.Config{}, fmt.Errorf("decode configuration: %w", err)
	}
	if !explicitURL {
		// Links must point where the server listens unless told otherwise.
		cfg.ExternalURL = "http://" + cfg.Listen
	}
	if err := cfg.Validate(); err != nil {
		return config.Config{}, fmt.Errorf("invalid configuration: %w", err)
	}
	return cfg, nil
}
