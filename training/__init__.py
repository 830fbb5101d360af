"""Data prep, fine-tuning, export, quantisation and evaluation of the punctuation model (needs torch)."""
