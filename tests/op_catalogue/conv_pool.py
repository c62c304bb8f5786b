"""placeholder"""
OPS = []
