package nvcc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNotFound is wrapped by Find's error when there is no nvcc.
var ErrNotFound = errors.New("nvcc not found")

// SearchOrder describes where Find looks, in its order.
const SearchOrder = "the path given, else $NVCC, else $CUDA_PATH/bin/nvcc, else nvcc on PATH, else /usr/local/cuda/bin/nvcc"

// DefaultPath is where a CUDA toolkit puts nvcc when nothing says otherwise.
const DefaultPath = "/usr/local/cuda/bin/nvcc"

// Find returns the path of nvcc: explicit when it is not empty (a path, or
// a name looked up on PATH), else $NVCC, else $CUDA_PATH/bin/nvcc, else
// nvcc on PATH, else /usr/local/cuda/bin/nvcc. An explicit path that is
// not an executable is an error, not a reason to look elsewhere.
func Find(explicit string) (string, error) {
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %v", ErrNotFound, explicit, err)
		}
		return p, nil
	}
	var cands []string
	if v := os.Getenv("NVCC"); v != "" {
		cands = append(cands, v)
	}
	if c := os.Getenv("CUDA_PATH"); c != "" {
		cands = append(cands, filepath.Join(c, "bin", "nvcc"))
	}
	cands = append(cands, "nvcc", DefaultPath)
	for _, c := range cands {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (looked at %s)", ErrNotFound, SearchOrder)
}
