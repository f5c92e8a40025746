"""What `fix` writes beyond a file's own edits: `fix` over a tree (batch), the dual-stack portability header and
device helper module (dualstack, compat, devicehelper), and the fixed tree written elsewhere (outtree). May
import: engine and below."""
