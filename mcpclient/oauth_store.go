package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// defaultTokenDir is $XDG_CONFIG_HOME/browseragent/tokens (or
// ~/.config/browseragent/tokens), next to mcp.json.
func defaultTokenDir() string {
	return filepath.Join(filepath.Dir(UserConfigPath()), "tokens")
}

// storedLogin is what one OAuth login leaves on disk: the token and what is
// needed to refresh it (the client and the token endpoint). It is only ever
// sent to the server URL it is filed under.
type storedLogin struct {
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	TokenURL     string           `json:"tokenUrl"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	AccessToken  string           `json:"accessToken"`
	TokenType    string           `json:"tokenType,omitempty"`
	RefreshToken string           `json:"refreshToken,omitempty"`
	Expiry       time.Time        `json:"expiry,omitzero"`
	// WantScopes are scopes a server asked for (403 insufficient_scope)
	// when no login could be run; the next login asks for them too.
	WantScopes []string `json:"wantScopes,omitempty"`
}

func (l *storedLogin) oauth2Config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: l.ClientID, ClientSecret: l.ClientSecret, Scopes: l.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: l.TokenURL, AuthStyle: l.AuthStyle},
	}
}

// withToken returns a copy of l carrying tok; a refresh that returns no new
// refresh token keeps the old one.
func (l storedLogin) withToken(tok *oauth2.Token) *storedLogin {
	l.AccessToken, l.TokenType, l.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		l.RefreshToken = tok.RefreshToken
	}
	return &l
}

// tokenStore files logins per server name: Dir/<name>.json maps each server
// URL to its login, so an ad-hoc name reused for two URLs keeps both and a
// token never goes to a URL it was not issued for. Files are 0600 in a
// 0700 directory.
type tokenStore struct{ dir string }

// storeMu serialises read-modify-write of token files within the process.
var storeMu sync.Mutex

var unsafeName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[^A-Za-z0-9._-]`)
})

// path maps a server name to a file name; names with other characters get
// a hash suffix so two names never share a file.
func (s tokenStore) path(name string) string {
	safe := unsafeName().ReplaceAllString(name, "_")
	if safe != name || safe == "" || safe[0] == '.' {
		sum := sha256.Sum256([]byte(name))
		safe = "_" + safe + "-" + hex.EncodeToString(sum[:4])
	}
	return filepath.Join(s.dir, safe+".json")
}

func (s tokenStore) read(name string) (map[string]*storedLogin, error) {
	p := s.path(name)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*storedLogin{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	m := map[string]*storedLogin{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("token store %s is not valid JSON (remove it with 'browseragent mcp logout %s'): %v", p, name, err)
	}
	return m, nil
}

// load returns the login for serverURL, or nil.
func (s tokenStore) load(name, serverURL string) (*storedLogin, error) {
	storeMu.Lock()
	defer storeMu.Unlock()
	m, err := s.read(name)
	if err != nil {
		return nil, err
	}
	return m[serverURL], nil
}

// save files l under name and serverURL, replacing what was there.
func (s tokenStore) save(name, serverURL string, l *storedLogin) error {
	storeMu.Lock()
	defer storeMu.Unlock()
	m, err := s.read(name)
	if err != nil {
		m = map[string]*storedLogin{} // a corrupt file is replaced by a good one
	}
	m[serverURL] = l
	return s.write(name, m)
}

// remove drops the login for serverURL, or every login of name when
// serverURL is empty; it reports whether anything was there.
func (s tokenStore) remove(name, serverURL string) (bool, error) {
	storeMu.Lock()
	defer storeMu.Unlock()
	p := s.path(name)
	if serverURL == "" {
		err := os.Remove(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	m, err := s.read(name)
	if err != nil {
		return false, err
	}
	if _, ok := m[serverURL]; !ok {
		return false, nil
	}
	delete(m, serverURL)
	if len(m) == 0 {
		return true, os.Remove(p)
	}
	return true, s.write(name, m)
}

func (s tokenStore) write(name string, m map[string]*storedLogin) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	p := s.path(name)
	tmp := p + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}
