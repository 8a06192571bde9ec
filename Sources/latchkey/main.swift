// placeholder
print("latchkey")
