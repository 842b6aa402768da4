from .language import *  # placeholder
